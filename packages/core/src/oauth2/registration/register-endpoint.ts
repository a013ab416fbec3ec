import type { Context } from '../../context.js';
import { invalidRequest, oauthError, quoteAuthParam } from '../../errors.js';
import { bearerCredentials } from '../../http/bearer.js';
import { readBodyText } from '../../http/body.js';
import { noStoreJson } from '../../http/responses.js';
import type { Handler } from '../../http/router.js';
import type { CibaDeliveryMode } from '../../records/backchannel-client.js';
import type { TokenEndpointAuthMethod } from '../../storage/types.js';
import { addSeconds } from '../../time.js';
import { hashSecret, randomSecret, timingSafeEqual } from '../../tokens/secrets.js';
import { clientInformation } from './client-information.js';
import { clientRecordOf, parseClientMetadata } from './client-metadata.js';
import { chargeRegistration } from './registration-rate-limit.js';
import { registrationExtension } from './registration-record.js';
import type { DynamicRegistrationSettings } from './settings.js';

const PUBLIC_ONLY: readonly TokenEndpointAuthMethod[] = ['none'];
const WITH_CONFIDENTIAL: readonly TokenEndpointAuthMethod[] = [
  'none',
  'client_secret_basic',
  'client_secret_post',
];
/**
 * `securityProfile: 'fapi2-strict'`: confidential clients only (FAPI 2.0 Security Profile §5.3.2.1),
 * authenticating with `private_key_jwt` (the profile's one method Gatehouse offers), so a
 * registration asking for `none` (or omitting the method) or a shared secret is
 * `invalid_client_metadata`.
 */
const FAPI2_STRICT: readonly TokenEndpointAuthMethod[] = ['private_key_jwt'];

/**
 * `POST {base}/oauth2/v1/register` (RFC 7591 §3): registers a client from its JSON metadata and
 * answers 201 with the client information, its `client_secret` when confidential, and the
 * registration access token of RFC 7592 (stored as a hash, like every credential). Order of
 * checks: the address's registration budget (429), the initial access token when one is
 * configured (401), then the metadata (400 `invalid_redirect_uri` / `invalid_client_metadata`).
 *
 * An omitted `token_endpoint_auth_method` registers a public client (`none`), not RFC 7591's
 * `client_secret_basic`: §3.2.1 lets the server choose and report the values it registered, and a
 * self-registered client is usually a native or browser app that cannot keep a secret.
 */
export function registerEndpoint(
  settings: DynamicRegistrationSettings,
  backchannelLogout?: { readonly allowLoopback: boolean },
  backchannelModes?: readonly CibaDeliveryMode[],
): Handler {
  return async (
    request,
    ctx: Pick<
      Context,
      'issuer' | 'clock' | 'randomBytes' | 'emit' | 'storage' | 'tokens' | 'limits' | 'profile'
    >,
  ) => {
    const payer = await chargeRegistration(ctx, request, settings);
    if (settings.initialAccessToken !== undefined)
      await checkInitialAccessToken(ctx, request, settings.initialAccessToken);
    const type = request.headers.get('content-type') ?? '';
    if (!/^application\/json\s*(;|$)/i.test(type))
      throw invalidRequest('The registration request must be application/json (RFC 7591 section 3.1).');
    let body: unknown;
    try {
      body = JSON.parse(await readBodyText(request, ctx.limits.maxBodyBytes));
    } catch (error) {
      if (error instanceof SyntaxError)
        throw oauthError('invalid_client_metadata', 'The request body is not JSON.');
      throw error;
    }
    const metadata = parseClientMetadata(body, {
      authMethods: ctx.profile.confidentialClientsOnly
        ? FAPI2_STRICT
        : settings.allowConfidential
          ? WITH_CONFIDENTIAL
          : PUBLIC_ONLY,
      refuseSecrets: false,
      scopes: ctx.tokens.scopes,
      ...(backchannelLogout === undefined
        ? {}
        : { backchannelLogout: { allowLoopback: backchannelLogout.allowLoopback } }),
      ...(backchannelModes === undefined ? {} : { backchannelModes }),
    });
    const clientId = randomSecret(ctx.randomBytes, 16);
    const secret = metadata.tokenEndpointAuthMethod === 'none' ? undefined : randomSecret(ctx.randomBytes);
    const accessToken = randomSecret(ctx.randomBytes);
    const now = ctx.clock.now();
    const registration = {
      client: clientRecordOf(clientId, metadata, secret === undefined ? undefined : await hashSecret(secret)),
      registeredAt: now,
      expiresAt: addSeconds(now, settings.unusedTtl),
      ext: registrationExtension('dynamic_registration', metadata, await hashSecret(accessToken)),
    };
    // A full registry makes room from the heaviest network (fair shares, issue 41): the evicted
    // registration is deleted, its client id stops working, so it is audited.
    const saved = await ctx.storage.clients.saveClient(registration, {
      maxClients: settings.maxClients,
      partition: payer.write.partition,
    });
    // `?.`: a host's registry written to the earlier contract (resolving to nothing) evicts nothing.
    const evictedClientId = saved?.evictedClientId;
    if (evictedClientId !== undefined) ctx.emit({ type: 'client.evicted', clientId: evictedClientId });
    ctx.emit({ type: 'client.registered', clientId });
    return noStoreJson(
      {
        ...clientInformation(ctx, registration),
        ...(secret === undefined ? {} : { client_secret: secret }),
        registration_access_token: accessToken,
      },
      { status: 201 },
    );
  };
}

/** RFC 7591 §3 with RFC 6750 §3: the configured initial access token, as a Bearer token. */
async function checkInitialAccessToken(
  ctx: Pick<Context, 'issuer'>,
  request: Request,
  expected: string,
): Promise<void> {
  const realm = `Bearer realm=${quoteAuthParam(ctx.issuer)}`;
  const presented = bearerCredentials(request);
  if (presented === null || presented === '')
    throw oauthError('unauthorized', 'This server requires an initial access token to register a client.', {
      challenge: realm,
    });
  // Compared as digests: equal lengths, so the comparison time says nothing about the token.
  if (!timingSafeEqual(await hashSecret(presented), await hashSecret(expected)))
    throw oauthError('invalid_token', 'The initial access token is not valid.', {
      challenge: `${realm}, error="invalid_token"`,
    });
}
