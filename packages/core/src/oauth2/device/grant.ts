import type { Context } from '../../context.js';
import { base64url } from '../../crypto/encoding.js';
import { invalidGrant, oauthError } from '../../errors.js';
import type { Params } from '../../http/form.js';
import type { Answer } from '../../http/reply.js';
import { grantIdToken } from '../../oidc/grant-id-token.js';
import { userSubject } from '../../storage/subject.js';
import { hashSecret } from '../../tokens/secrets.js';
import type { AuthenticatedClient } from '../client-auth/authenticate-client.js';
import {
  clientMayUse,
  type Grant,
  grantAccessToken,
  newRefreshToken,
  tokenIssued,
} from '../grants/grant-tokens.js';
import { requestedResources, tokenAudience } from '../resource-indicators.js';
import { tokenResponse } from '../token-response.js';
import {
  type DeviceRecord,
  deviceKey,
  type PollState,
  parseDeviceRecord,
  parsePollState,
  pollKey,
  readDeviceRecord,
  recordKeptUntil,
  userCodeKey,
} from './device-records.js';
import { DEVICE_CODE_GRANT } from './endpoint.js';
import type { DeviceAuthorizationSettings } from './settings.js';

/** §3.5: how much `slow_down` adds to the interval, in seconds. */
export const SLOW_DOWN_SECONDS = 5;

/**
 * `grant_type=urn:ietf:params:oauth:grant-type:device_code` (RFC 8628 §3.4–§3.5). The device code
 * is looked up by hash; a code of another client is answered like an unknown one (`invalid_grant`)
 * and leaves the code untouched, so its own client still redeems it. Then, by the state of the
 * authorization: expired → `expired_token`; denied → `access_denied`; pending →
 * `authorization_pending`, or `slow_down` when the device polls before its interval has passed
 * (the interval then grows by 5 s, §3.5); approved → the code is taken (atomically: single use)
 * and the tokens issued as for an authorization code: access token, refresh token when the client
 * may refresh, ID token when `openid` was granted.
 */
export async function deviceCodeGrant(
  ctx: Pick<
    Context,
    'issuer' | 'clock' | 'randomBytes' | 'emit' | 'logger' | 'storage' | 'users' | 'keys' | 'tokens'
  >,
  settings: DeviceAuthorizationSettings,
  params: Params,
  { client }: AuthenticatedClient,
): Promise<Answer> {
  const deviceCode = params.require('device_code');
  const resources = requestedResources(params);
  const now = ctx.clock.now();
  const deviceCodeHash = await hashSecret(deviceCode);
  const found = await readDeviceRecord(ctx, deviceCodeHash, now);
  if (!found || found.record.clientId !== client.id) {
    throw invalidGrant('The device code is invalid, or was already used.');
  }
  const { record } = found;
  if (now >= record.expiresAt) throw oauthError('expired_token', 'The device code has expired.');
  if (record.status === 'denied') throw oauthError('access_denied', 'The user denied the request.');
  if (record.status === 'pending') return pending(ctx, settings, deviceCodeHash, record, now);
  // RFC 8707 §2.2: `resource` here picks among the authorized resources, never adds one; checked
  // before the code is taken, so a wrong one burns nothing.
  const audience = tokenAudience(ctx, record.resources, resources);
  return redeem(ctx, client, deviceCodeHash, audience, now);
}

/**
 * A poll of a pending authorization: `slow_down` when it comes before the interval since the last
 * poll (or the authorization) has passed, else `authorization_pending`. The poll state moves by
 * compare-and-set, so of two concurrent polls one is on time and the other too early.
 */
async function pending(
  ctx: Pick<Context, 'storage'>,
  settings: DeviceAuthorizationSettings,
  deviceCodeHash: string,
  record: DeviceRecord,
  now: number,
): Promise<never> {
  const key = pollKey(deviceCodeHash);
  const text = await ctx.storage.kv.get(key, now);
  const last = parsePollState(text) ?? {
    at: record.createdAt,
    interval: settings.pollIntervalSeconds,
  };
  const early = now - last.at < last.interval * 1000;
  const next: PollState = { at: now, interval: early ? last.interval + SLOW_DOWN_SECONDS : last.interval };
  const until = recordKeptUntil(record);
  const moved =
    text === null
      ? await ctx.storage.kv.add(key, JSON.stringify(next), until, now)
      : await ctx.storage.kv.swap(key, text, JSON.stringify(next), until, now);
  if (early || !moved) {
    throw oauthError('slow_down', `Polling too fast: wait ${next.interval} seconds between requests.`);
  }
  throw oauthError('authorization_pending', 'The user has not yet approved the request.');
}

/** Takes the approved authorization (single use) and issues its tokens. */
async function redeem(
  ctx: Pick<
    Context,
    'issuer' | 'clock' | 'randomBytes' | 'emit' | 'logger' | 'storage' | 'users' | 'keys' | 'tokens'
  >,
  client: AuthenticatedClient['client'],
  deviceCodeHash: string,
  audience: readonly string[] | undefined,
  now: number,
): Promise<Answer> {
  const record = parseDeviceRecord(await ctx.storage.kv.take(deviceKey(deviceCodeHash), now));
  // Another poll took it first: this one redeems nothing.
  if (record?.status !== 'approved' || record.userId === undefined || record.clientId !== client.id) {
    throw invalidGrant('The device code is invalid, or was already used.');
  }
  await Promise.all([
    ctx.storage.kv.delete(pollKey(deviceCodeHash)),
    ctx.storage.kv.delete(userCodeKey(record.userCode)),
  ]);
  // `revokeUser` takes back everything the user gave before its mark, an approval not yet redeemed
  // included (the tokens would otherwise be issued after the mark, and outlive it).
  const mark = await ctx.storage.grants.subjectRevokedAt?.(record.userId, now);
  if (mark !== undefined && mark !== null && (record.approvedAt ?? 0) <= mark) {
    throw invalidGrant('The device code is invalid, or was already used.');
  }
  const grant: Grant = {
    grantId: base64url(ctx.randomBytes(16)),
    clientId: client.id,
    subject: userSubject(record.userId),
    scope: record.scope,
    ...(record.resources === undefined ? {} : { audience: record.resources }),
    ...(record.authTime === undefined ? {} : { authTime: record.authTime }),
    ...(record.sessionId === undefined ? {} : { sessionId: record.sessionId }),
    ...(record.acr === undefined ? {} : { acr: record.acr }),
    ...(record.amr === undefined ? {} : { amr: record.amr }),
    grantedAt: now,
  };
  const access = await grantAccessToken(ctx, grant, grant.scope, audience);
  const idToken = await grantIdToken(ctx, client, grant, access.token);
  let refreshToken: string | undefined;
  if (clientMayUse(client, 'refresh_token')) {
    const refresh = await newRefreshToken(ctx, grant, now);
    await ctx.storage.grants.saveRefreshToken(refresh.record);
    refreshToken = refresh.token;
  }
  ctx.emit(tokenIssued(client.id, grant.subject, DEVICE_CODE_GRANT));
  return tokenResponse({
    accessToken: access.token,
    expiresIn: ctx.tokens.accessTokenTtl,
    refreshToken,
    scope: record.scope,
    idToken,
  });
}
