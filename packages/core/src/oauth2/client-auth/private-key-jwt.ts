import { decodeJwt, importJWK, type JWTVerifyGetKey, type KeyObject } from 'jose';
import type { ClientAuthentication, Context } from '../../context.js';
import { invalidClient, invalidRequest } from '../../errors.js';
import { clientWritePartition } from '../../http/address-rate-limit.js';
import { isSelfRegistered } from '../../storage/self-registered.js';
import type { ClientRecord } from '../../storage/types.js';
import { MAX_ASSERTION_LENGTH, useAssertionOnce, verifyAssertion } from '../jwt-assertion.js';
import { TOKEN_ENDPOINT_PATH } from '../token-endpoint-path.js';
import { inlineKeySet } from './client-jwks.js';
import type { ClientAuthMethod, PresentedClient } from './method.js';

/**
 * How far ahead of this server's clock a client assertion's `iat` and `nbf` may be under the FAPI
 * 2.0 profile (Security Profile §5.3.2.1: accept 0–10 s in the future, refuse more than 60 s).
 */
const FAPI2_ASSERTION_AHEAD_SECONDS = 10;

/** RFC 7523 §2.2: the `client_assertion_type` of a JWT client assertion. */
export const JWT_BEARER_ASSERTION_TYPE = 'urn:ietf:params:oauth:client-assertion-type:jwt-bearer';

export { ASSERTION_SIGNING_ALGORITHMS, MAX_ASSERTION_LIFETIME_SECONDS } from '../jwt-assertion.js';

/**
 * New assertions per replay window of a host's client that `introspects` and names no
 * `maxAssertionsPerWindow`: an introspecting resource server signs one per call it makes, so far
 * more than a client signing in (1,000, the replay store's default); about 460 calls a second over
 * the ~65 s window of its 60 s assertions. A self-registered client never gets it (it cannot
 * `introspect`).
 */
export const INTROSPECTING_CLIENT_ASSERTIONS = 30_000;

/**
 * The replay quota of `client`'s assertions: its own `maxAssertionsPerWindow`, else
 * {@link INTROSPECTING_CLIENT_ASSERTIONS} when it introspects, else the store's (`undefined`).
 * Only the host's records are trusted with it: anyone can register a client.
 */
export function assertionQuota(client: ClientRecord): number | undefined {
  if (isSelfRegistered(client)) return undefined;
  if (client.maxAssertionsPerWindow !== undefined) return client.maxAssertionsPerWindow;
  return client.introspects !== undefined && client.introspects.length > 0
    ? INTROSPECTING_CLIENT_ASSERTIONS
    : undefined;
}

/** What a `private_key_jwt` request presents. */
export interface PresentedAssertion extends PresentedClient {
  readonly assertion: string;
  /** The URL of the endpoint the request was sent to, an accepted `aud`. */
  readonly endpoint: string;
  /** The request, charged for a `jwks_uri` fetch it causes (per client address). */
  readonly request: Request;
}

/**
 * `private_key_jwt` (RFC 7523 §2.2 and §3, OpenID Connect Core §9): the client signs a short-lived
 * JWT with its private key and sends it as `client_assertion`. The client registers its public keys
 * inline (`jwks`) or by URL (`jwksUri`, fetched under the `clientJwks` policy). The assertion must
 * be signed with an allowed asymmetric algorithm by one of those keys, carry `iss` = `sub` = the
 * client id, an `aud` naming this server (its issuer, or the URL of the endpoint, as OpenID
 * Connect Core §9 and RFC 7523 §3 item 3 allow), an `exp` at most
 * {@link MAX_ASSERTION_LIFETIME_SECONDS} ahead and a `jti` never seen before (remembered in the
 * replay store until the assertion expires; a replay is 401 `invalid_client`, RFC 7523 §3 item 7).
 */
export const privateKeyJwt: ClientAuthMethod<PresentedAssertion> = {
  name: 'private_key_jwt',
  provesIdentity: true,
  bodyParameters: ['client_assertion', 'client_assertion_type'],
  detect(ctx, request, params) {
    const type = params.get('client_assertion_type');
    const assertion = params.get('client_assertion');
    if (type === undefined && assertion === undefined) return undefined;
    if (type === undefined || assertion === undefined) {
      throw invalidRequest(
        'client_assertion and client_assertion_type must be sent together (RFC 7521 §4.2).',
      );
    }
    // RFC 7521 §4.2.1: an assertion that cannot be used is invalid_client, as is an unsupported
    // authentication method (RFC 6749 §5.2).
    if (type !== JWT_BEARER_ASSERTION_TYPE || assertion.length > MAX_ASSERTION_LENGTH) {
      throw invalidClient(ctx.issuer);
    }
    let sub: unknown;
    try {
      sub = decodeJwt(assertion).sub;
    } catch {
      throw invalidClient(ctx.issuer);
    }
    // The client it names: `sub` (RFC 7523 §3 item 2), or the body's client_id (§2.2 makes it
    // optional; when both are there, they must agree, which `authenticateClient` checks).
    const clientId = typeof sub === 'string' ? sub : (params.get('client_id') ?? '');
    return { clientId, assertion, endpoint: endpointUrl(ctx, request), request };
  },
  async verify(ctx, presented, client) {
    let keys = client ? await clientKeySet(ctx, client, false, presented.request) : undefined;
    let claims = await verifyClientAssertion(ctx, presented, keys ?? (await decoyKey()));
    if (claims === 'no-key' && client?.jwksUri !== undefined) {
      // The client may have rotated its keys since they were cached: fetch again (rate-limited).
      keys = await clientKeySet(ctx, client, true, presented.request);
      if (keys) claims = await verifyClientAssertion(ctx, presented, keys);
    }
    if (!client || !keys || typeof claims !== 'object') return false;
    // Remembered under the client's id: two clients' jti never collide. Anyone can register a
    // client: a self-registered one's ids are charged to its caller's network.
    const payer = isSelfRegistered(client)
      ? await clientWritePartition(ctx, presented.request, client, false)
      : undefined;
    return useAssertionOnce(
      ctx,
      'client-assertion',
      client.id,
      claims,
      { payer, quota: assertionQuota(client) },
      ctx.profile.securityProfile === 'fapi2' ? FAPI2_ASSERTION_AHEAD_SECONDS : 0,
    );
  },
};

/** The URL of the endpoint a request was sent to, below the issuer (whatever host it came in on). */
function endpointUrl(ctx: Pick<Context, 'issuer' | 'site'>, request: Request): string {
  let pathname: string;
  try {
    pathname = new URL(request.url).pathname;
  } catch {
    pathname = '';
  }
  return (
    ctx.issuer +
    (pathname.startsWith(ctx.site.basePath) ? pathname.slice(ctx.site.basePath.length) : TOKEN_ENDPOINT_PATH)
  );
}

/** RFC 7523 §3 for a client assertion: `iss` = `sub` = the client, `aud` this server or the endpoint. */
function verifyClientAssertion(
  ctx: ClientAuthentication,
  presented: PresentedAssertion,
  key: JWTVerifyGetKey | KeyObject | CryptoKey,
) {
  return verifyAssertion(ctx, presented.assertion, key, {
    issuer: presented.clientId,
    subject: presented.clientId,
    requiredClaims: ['jti'],
    // FAPI 2.0 Security Profile §5.3.2.1: under the profile, `aud` is the issuer identifier only,
    // as a string, and `iat`/`nbf` up to 10 s ahead are accepted (clocks drift).
    ...(ctx.profile.securityProfile === 'fapi2'
      ? { audience: [ctx.issuer], audienceAsString: true, aheadSeconds: FAPI2_ASSERTION_AHEAD_SECONDS }
      : { audience: [ctx.issuer, presented.endpoint, ctx.issuer + TOKEN_ENDPOINT_PATH] }),
  });
}

/** The registered keys of `client`: inline `jwks`, else the cached or fetched `jwksUri` document. */
async function clientKeySet(
  ctx: ClientAuthentication,
  client: ClientRecord,
  stale: boolean,
  request: Request,
): Promise<JWTVerifyGetKey | undefined> {
  if (client.jwks !== undefined) return inlineKeySet(client);
  if (client.jwksUri !== undefined)
    return ctx.clients.jwks.keySet(client.jwksUri, ctx.clock.now(), stale, request);
  return undefined;
}

/**
 * The key verified against when the client is unknown or has no usable keys, so that such requests
 * cost a signature verification like the others (client ids are not probed by timing). It is the
 * example key of RFC 7515 §A.3, whose private half is public: harmless, since a request verified
 * against it fails whatever the outcome.
 */
const DECOY_JWK = {
  kty: 'EC',
  crv: 'P-256',
  x: 'f83OJ3D2xF1Bg8vub9tLe1gHMzV76e8Tus9uPHvRVEU',
  y: 'x_FEzRu9m36HLN_tue659LNpXW6pCyStikYjKIWI5a0',
};
let decoy: Promise<KeyObject | CryptoKey> | undefined;
function decoyKey(): Promise<KeyObject | CryptoKey> {
  decoy ??= importJWK(DECOY_JWK, 'ES256') as Promise<KeyObject | CryptoKey>;
  return decoy;
}
