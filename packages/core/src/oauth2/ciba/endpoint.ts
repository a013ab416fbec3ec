import type { Context } from '../../context.js';
import { invalidRequest, oauthError } from '../../errors.js';
import type { InstanceSettings } from '../../feature.js';
import { clientWritePartition } from '../../http/address-rate-limit.js';
import { readForm } from '../../http/form.js';
import { noStoreJson } from '../../http/responses.js';
import type { Handler } from '../../http/router.js';
import { idTokenAlgorithm, verifyIdTokenHint } from '../../oidc/id-token.js';
import { CIBA_GRANT } from '../../records/backchannel-client.js';
import type { ClientRecord } from '../../storage/types.js';
import { addSeconds } from '../../time.js';
import { hashSecret, randomSecret } from '../../tokens/secrets.js';
import { PAGE_PATHS } from '../../ui/paths.js';
import { authenticateClient } from '../client-auth/authenticate-client.js';
import { CLIENT_AUTH_METHODS } from '../client-auth/methods.js';
import { clientMayUse } from '../grants/grant-tokens.js';
import { authorizedResources, requestedResources } from '../resource-indicators.js';
import { parseScope, resolveRequestedScope } from '../scope.js';
import { chargeRequest, reserveUserSlot } from './limits.js';
import { notifyDevice } from './notify.js';
import {
  type CibaRecord,
  MAX_CIBA_RECORD_CHARS,
  type PingState,
  type PollState,
  pingKey,
  pollKey,
  recordKeptUntil,
  releaseUserSlot,
  requestKey,
} from './records.js';
import type { CibaSettings } from './settings.js';

/** Longest `login_hint` looked up, in characters. */
const MAX_LOGIN_HINT = 256;
/** Longest `binding_message` shown, in characters (CIBA §7.1: "relatively short"). */
export const MAX_BINDING_MESSAGE = 100;
/** Longest `client_notification_token` kept, in characters (CIBA §7.1: a bearer token, RFC 6750). */
const MAX_NOTIFICATION_TOKEN = 1024;
/** RFC 6750 §2.1 `b64token`: what can follow `Bearer ` in the callback's `Authorization`. */
const B64TOKEN = /^[A-Za-z0-9\-._~+/]+=*$/;

/**
 * `POST {base}/oauth2/v1/backchannel_authentication` (CIBA Core 1.0 §7). The client authenticates
 * as at the token endpoint (§7.1; a client proving no identity is refused) and must be registered
 * for the CIBA grant with a served delivery mode. The request names the user with exactly one hint
 * (`login_hint`, resolved by the host's `resolveLoginHint`, or `id_token_hint`, an ID token this
 * instance issued to the client; `login_hint_token` is not served), asks for `openid` (§7.1), may
 * carry a `binding_message` (shown to the user on the device and the approval page, so bounded and
 * printable), `requested_expiry`, `resource` (RFC 8707) and, in ping mode, the
 * `client_notification_token` (required there). Everything is checked before anything is charged
 * or stored; then the client's and the user's budgets are charged (`limits.ts`), the request
 * stored, the user's device told (`notify`), and the answer carries the `auth_req_id` (§7.3: 128
 * bits of request id and 256 of secret, stored as the secret's hash), `expires_in` and `interval`.
 */
export const backchannelAuthenticationEndpoint =
  (settings: CibaSettings, details: InstanceSettings['authorizationDetails']): Handler =>
  async (
    request,
    ctx: Pick<
      Context,
      | 'issuer'
      | 'site'
      | 'clock'
      | 'randomBytes'
      | 'emit'
      | 'logger'
      | 'storage'
      | 'clients'
      | 'users'
      | 'keys'
      | 'tokens'
      | 'limits'
      | 'profile'
    >,
  ) => {
    const params = await readForm(request, ctx.limits.maxBodyBytes);
    const { client, method } = await authenticateClient(ctx, request, params);
    if (!CLIENT_AUTH_METHODS[method]?.provesIdentity)
      throw oauthError(
        'unauthorized_client',
        'Backchannel authentication needs a client that authenticates.',
      );
    if (!clientMayUse(client, CIBA_GRANT))
      throw oauthError('unauthorized_client', 'The client may not use backchannel authentication.');
    const mode = client.backchannelTokenDeliveryMode ?? 'poll';
    if (!settings.deliveryModes.includes(mode))
      throw oauthError('unauthorized_client', `The token delivery mode ${mode} is not served here.`);
    if (params.get('request') !== undefined)
      throw oauthError('request_not_supported', 'Signed authentication requests are not supported.');

    const scope = resolveRequestedScope(ctx, client, params.get('scope'));
    if (!parseScope(scope).includes('openid'))
      throw oauthError(
        'invalid_scope',
        'A backchannel authentication request must ask for openid (CIBA 7.1).',
      );
    if (!ctx.keys.signers.has(idTokenAlgorithm(ctx.keys, client)))
      throw oauthError(
        'unauthorized_client',
        `The client's id_token_signed_response_alg ${client.idTokenSignedResponseAlg} has no key on this server.`,
      );
    const resources = authorizedResources(ctx, client, requestedResources(params));
    // RFC 9396 §3 (and its §4 for other endpoints): `authorization_details` here as at the
    // authorization endpoint, checked by the instance's types; ignored with the feature off.
    const detailsText = details === undefined ? undefined : params.get('authorization_details');
    const authorizationDetails =
      detailsText === undefined || details === undefined ? undefined : details.parse(detailsText, client);
    const bindingMessage = checkedBindingMessage(params.get('binding_message'));
    const lifetime = requestedLifetime(settings, params.get('requested_expiry'));
    const notificationToken =
      mode === 'ping' ? checkedNotificationToken(params.get('client_notification_token')) : undefined;
    if (mode === 'ping' && client.backchannelClientNotificationEndpoint === undefined)
      throw oauthError(
        'unauthorized_client',
        'The client registered no backchannel_client_notification_endpoint.',
      );
    const userId = await hintedUser(ctx, settings, client, params);

    // Everything checked: the request is charged, then stored.
    const partition = await clientWritePartition(ctx, request, client, true);
    const now = ctx.clock.now();
    await chargeRequest(ctx, settings, partition, userId, now);
    const requestId = randomSecret(ctx.randomBytes, 16);
    const secret = randomSecret(ctx.randomBytes);
    const authReqId = `${requestId}.${secret}`;
    const expiresAt = addSeconds(now, lifetime);
    const record: CibaRecord = {
      v: 1,
      secretHash: await hashSecret(secret),
      clientId: client.id,
      userId,
      scope,
      ...(resources === undefined ? {} : { resources }),
      ...(bindingMessage === undefined ? {} : { bindingMessage }),
      ...(authorizationDetails === undefined ? {} : { authorizationDetails }),
      mode,
      createdAt: now,
      expiresAt,
      status: 'pending',
    };
    const text = JSON.stringify(record);
    if (text.length > MAX_CIBA_RECORD_CHARS) throw invalidRequest('The request is too large.');
    const write = { partition };
    await reserveUserSlot(ctx, settings, userId, requestId, expiresAt, now);
    try {
      const until = recordKeptUntil(record);
      const poll: PollState = { at: now, interval: settings.pollIntervalSeconds };
      const ping: PingState | undefined =
        notificationToken === undefined
          ? undefined
          : { authReqId, token: notificationToken, endpoint: client.backchannelClientNotificationEndpoint! };
      // `add` (set-if-absent) for keys that are new by construction (a 128-bit request id).
      await Promise.all([
        ctx.storage.kv.add(requestKey(requestId), text, until, now, write),
        ctx.storage.kv.add(pollKey(requestId), JSON.stringify(poll), until, now, write),
        ...(ping === undefined
          ? []
          : [ctx.storage.kv.add(pingKey(requestId), JSON.stringify(ping), until, now, write)]),
      ]);
    } catch (error) {
      // Nothing half-written: a store that failed midway leaves no request the user would see.
      await Promise.allSettled([
        ctx.storage.kv.delete(requestKey(requestId)),
        ctx.storage.kv.delete(pollKey(requestId)),
        ctx.storage.kv.delete(pingKey(requestId)),
        releaseUserSlot(ctx, userId, requestId, now),
      ]);
      throw error;
    }
    ctx.emit({ type: 'ciba.requested', clientId: client.id, userId, mode });
    await notifyDevice(ctx, settings, {
      user: { id: userId },
      client: { id: client.id, name: client.name ?? client.id },
      ...(bindingMessage === undefined ? {} : { bindingMessage }),
      scopes: parseScope(scope),
      ...(authorizationDetails === undefined ? {} : { authorizationDetails }),
      requestId,
      approvalUrl: ctx.issuer + PAGE_PATHS.approvals,
      expiresAt,
    });
    return noStoreJson({
      auth_req_id: authReqId,
      expires_in: lifetime,
      interval: settings.pollIntervalSeconds,
    });
  };

/** CIBA §7.1 `binding_message`: at most {@link MAX_BINDING_MESSAGE} printable characters. */
function checkedBindingMessage(value: string | undefined): string | undefined {
  if (value === undefined) return undefined;
  const printable = value.trim() !== '' && ![...value].some(isControlCharacter);
  if (!printable || [...value].length > MAX_BINDING_MESSAGE)
    throw oauthError(
      'invalid_binding_message',
      `The binding_message must be 1 to ${MAX_BINDING_MESSAGE} printable characters.`,
    );
  return value;
}

/** C0 and C1 controls, DEL and the Unicode line and paragraph separators: they forge lines. */
function isControlCharacter(character: string): boolean {
  const code = character.codePointAt(0)!;
  return code < 0x20 || (code >= 0x7f && code <= 0x9f) || code === 0x2028 || code === 0x2029;
}

/** CIBA §7.1 `requested_expiry`: a positive whole number of seconds, capped at the longest lifetime. */
function requestedLifetime(settings: CibaSettings, value: string | undefined): number {
  if (value === undefined) return settings.requestLifetimeSeconds;
  if (!/^[1-9][0-9]{0,8}$/.test(value))
    throw invalidRequest('requested_expiry must be a positive whole number of seconds.');
  return Math.min(Number(value), settings.maxRequestLifetimeSeconds);
}

/** CIBA §7.1 `client_notification_token`: required in ping mode, a bearer token (RFC 6750 §2.1). */
function checkedNotificationToken(value: string | undefined): string {
  if (value === undefined) throw invalidRequest('A ping client must send a client_notification_token.');
  if (value.length > MAX_NOTIFICATION_TOKEN || !B64TOKEN.test(value))
    throw invalidRequest(
      `The client_notification_token must be a bearer token (RFC 6750 b64token) of at most ${MAX_NOTIFICATION_TOKEN} characters.`,
    );
  return value;
}

/**
 * The user the request names (CIBA §7.1): exactly one hint; `login_hint` resolved by the host
 * (default: a user id), `id_token_hint` an ID token of this issuer issued to this client (expired or
 * not: it identifies, it does not authenticate). A user the store does not know is
 * `unknown_user_id` (§13).
 */
async function hintedUser(
  ctx: Pick<Context, 'issuer' | 'keys' | 'users'>,
  settings: CibaSettings,
  client: ClientRecord,
  params: { get(name: string): string | undefined },
): Promise<string> {
  const loginHint = params.get('login_hint');
  const idTokenHint = params.get('id_token_hint');
  const hintToken = params.get('login_hint_token');
  const given = [loginHint, idTokenHint, hintToken].filter((hint) => hint !== undefined).length;
  if (given !== 1)
    throw invalidRequest('Name the user with exactly one of login_hint, id_token_hint and login_hint_token.');
  if (hintToken !== undefined) throw invalidRequest('login_hint_token is not supported; send login_hint.');
  let userId: string | null;
  if (idTokenHint !== undefined) {
    const hint = await verifyIdTokenHint(ctx, idTokenHint);
    if (!hint?.audiences.includes(client.id))
      throw invalidRequest('The id_token_hint is not an ID token this server issued to the client.');
    userId = hint.sub;
  } else {
    const hint = loginHint!;
    if (hint === '' || hint.length > MAX_LOGIN_HINT)
      throw invalidRequest(`The login_hint must be 1 to ${MAX_LOGIN_HINT} characters.`);
    userId = settings.resolveLoginHint ? await settings.resolveLoginHint(hint, { id: client.id }) : hint;
    if (userId !== null && (typeof userId !== 'string' || userId === '')) userId = null;
  }
  const user = userId === null ? null : await ctx.users.findUser(userId);
  if (user === null || userId === null)
    throw oauthError('unknown_user_id', 'The hint names no user of this server.');
  return userId;
}
