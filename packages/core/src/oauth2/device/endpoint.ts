import type { Context } from '../../context.js';
import { invalidRequest, oauthError } from '../../errors.js';
import { chargeClientNetwork, clientWritePartition } from '../../http/address-rate-limit.js';
import { readForm } from '../../http/form.js';
import type { Answer } from '../../http/reply.js';
import { noStoreJson } from '../../http/responses.js';
import type { Handler } from '../../http/router.js';
import { idTokenAlgorithm } from '../../oidc/id-token.js';
import type { Payer } from '../../storage/kv/fair-share.js';
import type { KeyValueWriteOptions } from '../../storage/types.js';
import { addSeconds } from '../../time.js';
import { hashSecret, randomSecret } from '../../tokens/secrets.js';
import { PAGE_PATHS } from '../../ui/paths.js';
import { authenticateClient } from '../client-auth/authenticate-client.js';
import { CLIENT_AUTH_METHODS } from '../client-auth/methods.js';
import { clientMayUse } from '../grants/grant-tokens.js';
import { authorizedResources, requestedResources } from '../resource-indicators.js';
import { parseScope, resolveRequestedScope } from '../scope.js';
import {
  type DeviceRecord,
  deviceKey,
  MAX_DEVICE_RECORD_CHARS,
  type PollState,
  pollKey,
  recordKeptUntil,
  userCodeKey,
} from './device-records.js';
import type { DeviceAuthorizationSettings } from './settings.js';
import { formatUserCode, newUserCode } from './user-code.js';

/** RFC 8628 §3.4: the grant type of the device access token request. */
export const DEVICE_CODE_GRANT = 'urn:ietf:params:oauth:grant-type:device_code';

/** New user codes tried when one collides with a live one (20^8 codes: a second try is rare). */
const USER_CODE_ATTEMPTS = 5;

/**
 * `POST {issuer}/oauth2/v1/device_authorization` (RFC 8628 §3.1–§3.2). The client authenticates as
 * at the token endpoint (public clients send `client_id`); it must be registered for the device
 * code grant. `scope` as at authorize (the client's and the instance's scopes; `openid` needs a
 * key for the client's ID token algorithm), `resource` per RFC 8707. The answer carries a new
 * device code (256 random bits, stored only as its hash), a user code, where to enter it, its
 * lifetime and the polling interval.
 */
export const deviceAuthorizationEndpoint =
  (settings: DeviceAuthorizationSettings): Handler =>
  async (
    request,
    ctx: Pick<
      Context,
      | 'issuer'
      | 'site'
      | 'clock'
      | 'randomBytes'
      | 'emit'
      | 'storage'
      | 'clients'
      | 'keys'
      | 'tokens'
      | 'limits'
      | 'profile'
    >,
  ) => {
    const params = await readForm(request, ctx.limits.maxBodyBytes);
    const { client, method } = await authenticateClient(ctx, request, params);
    if (!clientMayUse(client, DEVICE_CODE_GRANT)) {
      throw oauthError('unauthorized_client', 'The client may not use the device authorization grant.');
    }
    const scope = resolveRequestedScope(ctx, client, params.get('scope'));
    if (parseScope(scope).includes('openid') && !ctx.keys.signers.has(idTokenAlgorithm(ctx.keys, client))) {
      throw oauthError(
        'unauthorized_client',
        `The client's id_token_signed_response_alg ${client.idTokenSignedResponseAlg} has no key on this server.`,
      );
    }
    const resources = authorizedResources(ctx, client, requestedResources(params));
    // A public client proves nothing: its caller's network pays; a confidential client pays itself.
    const write: KeyValueWriteOptions = CLIENT_AUTH_METHODS[method]?.provesIdentity
      ? { partition: await clientWritePartition(ctx, request, client, true) }
      : (await chargePublicRequest(ctx, settings, request)).write;

    const now = ctx.clock.now();
    const deviceCode = randomSecret(ctx.randomBytes);
    const deviceCodeHash = await hashSecret(deviceCode);
    const { codeLifetimeSeconds, pollIntervalSeconds } = settings;
    const expiresAt = addSeconds(now, codeLifetimeSeconds);
    const userCode = await reserveUserCode(ctx, deviceCodeHash, expiresAt, now, write);
    const record: DeviceRecord = {
      clientId: client.id,
      scope,
      ...(resources === undefined ? {} : { resources }),
      userCode,
      createdAt: now,
      expiresAt,
      status: 'pending',
    };
    const text = JSON.stringify(record);
    if (text.length > MAX_DEVICE_RECORD_CHARS) {
      await ctx.storage.kv.delete(userCodeKey(userCode));
      throw invalidRequest('The request is too large.');
    }
    const poll: PollState = { at: now, interval: pollIntervalSeconds };
    // `add` (set-if-absent) for keys that are new by construction (a 256-bit code's hash): it takes
    // the instance's clock, where `set` takes the engine's.
    await Promise.all([
      ctx.storage.kv.add(deviceKey(deviceCodeHash), text, recordKeptUntil(record), now, write),
      ctx.storage.kv.add(pollKey(deviceCodeHash), JSON.stringify(poll), recordKeptUntil(record), now, write),
    ]);
    return deviceAuthorizationResponse(ctx, settings, deviceCode, userCode);
  };

/** §3.2: the JSON answer, never cached (it holds a secret). */
function deviceAuthorizationResponse(
  ctx: Pick<Context, 'issuer'>,
  settings: DeviceAuthorizationSettings,
  deviceCode: string,
  userCode: string,
): Answer {
  const verificationUri = ctx.issuer + PAGE_PATHS.device;
  const shown = formatUserCode(userCode);
  return noStoreJson({
    device_code: deviceCode,
    user_code: shown,
    verification_uri: verificationUri,
    // §3.3.1: the code in the URI, for a QR code or a link; the page still asks to confirm it.
    verification_uri_complete: `${verificationUri}?${new URLSearchParams({ user_code: shown })}`,
    expires_in: settings.codeLifetimeSeconds,
    interval: settings.pollIntervalSeconds,
  });
}

/**
 * A new user code, indexed to the device code hash (`add`: a code of another live authorization is
 * never taken over; a collision draws again).
 */
async function reserveUserCode(
  ctx: Pick<Context, 'randomBytes' | 'storage'>,
  deviceCodeHash: string,
  expiresAt: number,
  now: number,
  write: KeyValueWriteOptions,
): Promise<string> {
  for (let attempt = 0; attempt < USER_CODE_ATTEMPTS; attempt++) {
    const userCode = newUserCode(ctx.randomBytes);
    if (await ctx.storage.kv.add(userCodeKey(userCode), deviceCodeHash, expiresAt, now, write))
      return userCode;
  }
  throw oauthError('temporarily_unavailable', 'No free user code was found; try again.', { retryAfter: 1 });
}

/**
 * Charges one device authorization of a public client (which proves no identity, and makes the
 * server store a record until it expires) to the caller's address: `maxPublicRequestsPerAddress`
 * per code lifetime, so what an unauthenticated caller makes the server store is bounded.
 */
async function chargePublicRequest(
  ctx: Pick<Context, 'clock' | 'emit' | 'storage' | 'limits'>,
  settings: DeviceAuthorizationSettings,
  request: Request,
): Promise<Payer> {
  return chargeClientNetwork(ctx, request, {
    name: 'device-auth',
    max: settings.maxPublicRequestsPerAddress,
    windowSeconds: settings.codeLifetimeSeconds,
    description: 'Too many device authorizations from this address; try again later.',
  });
}
