import type { Context } from '../../context.js';
import { base64url } from '../../crypto/encoding.js';
import type { DpopProof } from '../../dpop/proof.js';
import { invalidGrant, oauthError } from '../../errors.js';
import type { InstanceSettings } from '../../feature.js';
import type { Params } from '../../http/form.js';
import type { Answer } from '../../http/reply.js';
import { grantIdToken } from '../../oidc/grant-id-token.js';
import { CIBA_GRANT } from '../../records/backchannel-client.js';
import { userSubject } from '../../storage/subject.js';
import type { AuthorizationDetail } from '../../tokens/authorization-details.js';
import { hashSecret, timingSafeEqual } from '../../tokens/secrets.js';
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
  type CibaRecord,
  type PollState,
  parseCibaRecord,
  parsePollState,
  pingKey,
  pollKey,
  readCibaRecord,
  recordKeptUntil,
  requestKey,
  splitAuthReqId,
} from './records.js';
import type { CibaSettings } from './settings.js';

/** CIBA §11 (with RFC 8628 §3.5): how much `slow_down` adds to the interval, in seconds. */
export const SLOW_DOWN_SECONDS = 5;

const unknown = () => invalidGrant('The auth_req_id is invalid, or was already used.');

/**
 * The `ext` member the rich authorization requests feature keeps a grant's details under, as JSON
 * text (its `DETAILS_EXTENSION`): the refresh tokens of an approved request carry the approved
 * details there, so a refresh keeps them (a test refreshes such a grant).
 */
const DETAILS_EXTENSION = 'authorizationDetails';

type DetailsService = InstanceSettings['authorizationDetails'];

/**
 * The details of the access token (RFC 9396 §6.1): all the approved ones without an
 * `authorization_details` parameter; with one, what it asks, if within the approved ones, else
 * `invalid_authorization_details`. Ignored with the feature off.
 */
function tokenDetails(
  service: DetailsService,
  params: Params,
  client: AuthenticatedClient['client'],
  approved: readonly AuthorizationDetail[] | undefined,
): readonly AuthorizationDetail[] | undefined {
  const text = service === undefined ? undefined : params.get('authorization_details');
  if (text === undefined || service === undefined) return approved;
  const requested = service.parse(text, client);
  if (approved === undefined || !service.covers(approved, requested))
    throw oauthError(
      'invalid_authorization_details',
      'A token request may ask for the approved authorization details or fewer, never more (RFC 9396 section 6.1).',
    );
  return requested;
}

/**
 * `grant_type=urn:openid:params:grant-type:ciba` (CIBA Core 1.0 §10.1, §11). The `auth_req_id` is
 * split into its request id (the record's key) and its secret (compared with the stored hash in
 * constant time); a request of another client is answered like an unknown one (`invalid_grant`)
 * and left untouched. Then by the request's state: expired → `expired_token`; denied →
 * `access_denied` (and the request is gone); pending → `authorization_pending`, or `slow_down` when
 * the client polls before its interval has passed (the interval then grows by 5 s); approved → the
 * request is taken (atomically: single use) and the tokens issued: access token (DPoP-bound with a
 * proof), refresh token when the client may refresh, and the ID token (`openid` is always granted).
 */
export async function cibaGrant(
  ctx: Pick<
    Context,
    'issuer' | 'clock' | 'randomBytes' | 'emit' | 'logger' | 'storage' | 'users' | 'keys' | 'tokens'
  >,
  settings: CibaSettings,
  params: Params,
  { client }: AuthenticatedClient,
  dpop: DpopProof | undefined,
  details?: DetailsService,
): Promise<Answer> {
  const authReqId = params.require('auth_req_id');
  const resources = requestedResources(params);
  const parts = splitAuthReqId(authReqId);
  if (parts === undefined) throw unknown();
  const now = ctx.clock.now();
  const found = await readCibaRecord(ctx, parts.requestId, now);
  if (
    !found ||
    found.record.clientId !== client.id ||
    !timingSafeEqual(await hashSecret(parts.secret), found.record.secretHash)
  )
    throw unknown();
  const { record, text } = found;
  if (now >= record.expiresAt) throw oauthError('expired_token', 'The auth_req_id has expired.');
  if (record.status === 'denied') {
    // Single use, like an approval: the client hears the denial once (§11).
    if ((await ctx.storage.kv.take(requestKey(parts.requestId), now)) !== text) throw unknown();
    await forget(ctx, parts.requestId);
    throw oauthError('access_denied', 'The user denied the request.');
  }
  if (record.status === 'pending') return pending(ctx, settings, parts.requestId, record, now);
  // RFC 8707 §2.2: `resource` here picks among the authorized resources, never adds one; checked
  // before the request is taken, so a wrong one burns nothing.
  // RFC 9396 §6.1 likewise for `authorization_details`.
  const audience = tokenAudience(ctx, record.resources, resources);
  const authorizationDetails = tokenDetails(details, params, client, record.authorizationDetails);
  return redeem(ctx, client, parts.requestId, { audience, authorizationDetails }, dpop, now);
}

/** The poll state and ping state of a request that is done. */
async function forget(ctx: Pick<Context, 'storage'>, requestId: string): Promise<void> {
  await Promise.all([ctx.storage.kv.delete(pollKey(requestId)), ctx.storage.kv.delete(pingKey(requestId))]);
}

/**
 * A poll of a pending request: `slow_down` when it comes before the interval since the last poll
 * (or the request) has passed, else `authorization_pending`. The poll state moves by
 * compare-and-set, so of two concurrent polls one is on time and the other too early.
 */
async function pending(
  ctx: Pick<Context, 'storage'>,
  settings: CibaSettings,
  requestId: string,
  record: CibaRecord,
  now: number,
): Promise<never> {
  const key = pollKey(requestId);
  const text = await ctx.storage.kv.get(key, now);
  const last = parsePollState(text) ?? { at: record.createdAt, interval: settings.pollIntervalSeconds };
  const early = now - last.at < last.interval * 1000;
  const next: PollState = { at: now, interval: early ? last.interval + SLOW_DOWN_SECONDS : last.interval };
  const until = recordKeptUntil(record);
  const moved =
    text === null
      ? await ctx.storage.kv.add(key, JSON.stringify(next), until, now)
      : await ctx.storage.kv.swap(key, text, JSON.stringify(next), until, now);
  if (early || !moved)
    throw oauthError('slow_down', `Polling too fast: wait ${next.interval} seconds between requests.`);
  throw oauthError('authorization_pending', 'The user has not yet approved the request.');
}

/** Takes the approved request (single use) and issues its tokens. */
async function redeem(
  ctx: Pick<
    Context,
    'issuer' | 'clock' | 'randomBytes' | 'emit' | 'logger' | 'storage' | 'users' | 'keys' | 'tokens'
  >,
  client: AuthenticatedClient['client'],
  requestId: string,
  granted: {
    readonly audience: readonly string[] | undefined;
    readonly authorizationDetails: readonly AuthorizationDetail[] | undefined;
  },
  dpop: DpopProof | undefined,
  now: number,
): Promise<Answer> {
  const record = parseCibaRecord(await ctx.storage.kv.take(requestKey(requestId), now));
  // Another request took it first: this one redeems nothing.
  if (record?.status !== 'approved' || record.clientId !== client.id) throw unknown();
  await forget(ctx, requestId);
  // `revokeUser` takes back everything the user gave before its mark, an approval not yet redeemed
  // included (the tokens would otherwise be issued after the mark, and outlive it).
  const mark = await ctx.storage.grants.subjectRevokedAt?.(record.userId, now);
  if (mark !== undefined && mark !== null && (record.decidedAt ?? 0) <= mark) throw unknown();
  // A user deleted meanwhile gets no tokens.
  if ((await ctx.users.findUser(record.userId)) === null) throw unknown();
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
    // The refresh tokens keep every approved detail (RFC 9396 §6.1), as they keep the whole scope.
    ...(record.authorizationDetails === undefined
      ? {}
      : { ext: { [DETAILS_EXTENSION]: JSON.stringify(record.authorizationDetails) } }),
    grantedAt: now,
  };
  const { audience, authorizationDetails } = granted;
  const access = await grantAccessToken(ctx, grant, grant.scope, audience, dpop?.jkt, authorizationDetails);
  const idToken = await grantIdToken(ctx, client, grant, access.token);
  let refreshToken: string | undefined;
  if (clientMayUse(client, 'refresh_token')) {
    const refresh = await newRefreshToken(ctx, grant, now);
    await ctx.storage.grants.saveRefreshToken(refresh.record);
    refreshToken = refresh.token;
  }
  ctx.emit(tokenIssued(client.id, grant.subject, CIBA_GRANT));
  return tokenResponse({
    accessToken: access.token,
    tokenType: dpop ? 'DPoP' : 'Bearer',
    expiresIn: ctx.tokens.accessTokenTtl,
    refreshToken,
    scope: record.scope,
    idToken,
    authorizationDetails,
  });
}
