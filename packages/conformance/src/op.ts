/**
 * The client's side of the checks every plan shares: discovery, the server's keys, client
 * authentication, token requests and the validation of ID tokens (OpenID Connect Core §3.1.3.7),
 * each broken rule reported with its section.
 */
import {
  base64url,
  createLocalJWKSet,
  decodeProtectedHeader,
  importJWK,
  type JSONWebKeySet,
  type JWK,
  type JWTPayload,
  jwtVerify,
  SignJWT,
} from 'jose';
import type { ClientConfig } from './config.js';
import type { HttpAnswer, ModuleContext } from './context.js';
import type { Exchange } from './types.js';

/** The server's metadata (OpenID Connect Discovery 1.0 §3, RFC 8414 §2). */
export type Metadata = Record<string, unknown> & {
  readonly issuer: string;
  readonly authorization_endpoint?: string;
  readonly token_endpoint?: string;
  readonly userinfo_endpoint?: string;
  readonly jwks_uri?: string;
  readonly end_session_endpoint?: string;
  readonly pushed_authorization_request_endpoint?: string;
};

/** The discovery document URL of an issuer (OpenID Connect Discovery 1.0 §4). */
export function discoveryUrl(issuer: string): string {
  return `${issuer.replace(/\/$/, '')}/.well-known/openid-configuration`;
}

/** Fetches the OpenID Provider configuration; ends the module when it cannot be read. */
export async function discover(t: ModuleContext): Promise<{ metadata: Metadata; answer: HttpAnswer }> {
  const answer = await t.request('GET', discoveryUrl(t.issuer));
  if (answer.status !== 200)
    return t.stop('OIDCD-4.2', `discovery answered ${answer.status}, not 200`, answer.exchange);
  const metadata = answer.json;
  if (typeof metadata !== 'object' || metadata === null || Array.isArray(metadata)) {
    return t.stop('OIDCD-4.2', 'discovery did not answer a JSON object (application/json)', answer.exchange);
  }
  const m = metadata as Metadata;
  if (m.issuer !== t.issuer) {
    return t.stop(
      'OIDCD-4.3',
      `issuer is ${JSON.stringify(m.issuer)}, not the issuer asked (${t.issuer})`,
      answer.exchange,
    );
  }
  return { metadata: m, answer };
}

/** A string array member of the metadata (empty when absent or not an array of strings). */
export function list(metadata: Metadata, name: string): string[] {
  const value = metadata[name];
  return Array.isArray(value) ? value.filter((item): item is string => typeof item === 'string') : [];
}

/** An endpoint the module needs; ends it when the server does not advertise one. */
export function endpoint(t: ModuleContext, metadata: Metadata, name: string, section = 'OIDCD-3'): string {
  const value = metadata[name];
  if (typeof value !== 'string') return t.stop(section, `the metadata has no ${name}`);
  return value;
}

/** Fetches the server's JWKS (`jwks_uri`). */
export async function fetchJwks(t: ModuleContext, metadata: Metadata): Promise<JSONWebKeySet> {
  const answer = await t.request('GET', endpoint(t, metadata, 'jwks_uri'));
  const jwks = answer.json as JSONWebKeySet | undefined;
  if (answer.status !== 200 || !jwks || !Array.isArray(jwks.keys)) {
    return t.stop('OIDCD-3', 'jwks_uri did not answer a JSON Web Key Set', answer.exchange);
  }
  return jwks;
}

/** How a client authenticates at the token endpoint (and PAR, introspection). */
export type AuthMethod = 'client_secret_basic' | 'client_secret_post' | 'private_key_jwt' | 'none';

/** Options of a `private_key_jwt` assertion, for the modules that break it on purpose. */
export interface AssertionOptions {
  readonly aud?: string | string[];
  readonly alg?: string;
  readonly omit?: readonly ('sub' | 'iss' | 'exp' | 'jti')[];
  /** Seconds added to `exp` (negative: in the past). Default 60. */
  readonly expIn?: number;
  /** Seconds added to `iat` and `nbf` (the future). */
  readonly iatShift?: number;
}

/** The client's signing key (the first private JWK of its `jwks`). */
export async function clientKey(client: ClientConfig): Promise<{ key: CryptoKey; jwk: JWK; alg: string }> {
  const jwk = client.jwks?.keys.find((key) => typeof key.d === 'string') as JWK | undefined;
  if (!jwk) throw new Error(`client ${client.client_id}: the config gives no private JWK in jwks`);
  const alg = jwk.alg ?? (jwk.kty === 'EC' ? 'ES256' : jwk.kty === 'OKP' ? 'EdDSA' : 'PS256');
  return { key: (await importJWK(jwk, alg)) as CryptoKey, jwk, alg };
}

/** A `private_key_jwt` client assertion (RFC 7523 §3, OpenID Connect Core §9). */
export async function clientAssertion(
  client: ClientConfig,
  audience: string | string[],
  options: AssertionOptions = {},
): Promise<string> {
  const { key, jwk, alg } = await clientKey(client);
  const now = Math.floor(Date.now() / 1000) + (options.iatShift ?? 0);
  const payload: JWTPayload = {
    iss: client.client_id,
    sub: client.client_id,
    aud: options.aud ?? audience,
    jti: base64url.encode(crypto.getRandomValues(new Uint8Array(16))),
    iat: now,
    nbf: now,
    exp: now + (options.expIn ?? 60),
  };
  for (const name of options.omit ?? []) delete payload[name];
  return new SignJWT(payload)
    .setProtectedHeader({ alg: options.alg ?? alg, ...(jwk.kid ? { kid: jwk.kid } : {}) })
    .sign(key);
}

/** The headers and form members that authenticate `client` with `method`. */
export async function clientAuth(
  client: ClientConfig,
  method: AuthMethod,
  audience: string,
  assertion: AssertionOptions = {},
): Promise<{ headers: Record<string, string>; form: Record<string, string> }> {
  switch (method) {
    case 'client_secret_basic': {
      // RFC 6749 §2.3.1: both parts form-urlencoded before base64.
      const id = encodeURIComponent(client.client_id);
      const secret = encodeURIComponent(client.client_secret ?? '');
      return { headers: { authorization: `Basic ${btoa(`${id}:${secret}`)}` }, form: {} };
    }
    case 'client_secret_post':
      return {
        headers: {},
        form: { client_id: client.client_id, client_secret: client.client_secret ?? '' },
      };
    case 'private_key_jwt':
      return {
        headers: {},
        form: {
          client_id: client.client_id,
          client_assertion_type: 'urn:ietf:params:oauth:client-assertion-type:jwt-bearer',
          client_assertion: await clientAssertion(client, audience, assertion),
        },
      };
    default:
      return { headers: {}, form: { client_id: client.client_id } };
  }
}

/** Checks a successful token response's shape (RFC 6749 §5.1). Returns the JSON. */
export function checkTokenResponse(
  t: ModuleContext,
  answer: HttpAnswer,
  expectedType = 'bearer',
): Record<string, unknown> {
  if (answer.status !== 200)
    return t.stop('RFC6749-5.1', `the token endpoint answered ${answer.status}, not 200`, answer.exchange);
  const body = answer.json as Record<string, unknown> | undefined;
  if (!body || typeof body !== 'object')
    return t.stop('RFC6749-5.1', 'the token response is not a JSON object', answer.exchange);
  if (typeof body.access_token !== 'string' || body.access_token === '') {
    return t.stop('RFC6749-5.1', 'the token response has no access_token', answer.exchange);
  }
  const type = typeof body.token_type === 'string' ? body.token_type.toLowerCase() : undefined;
  t.check(
    type === expectedType,
    'RFC6749-5.1',
    `token_type is ${JSON.stringify(body.token_type)}, expected ${expectedType} (case-insensitive, RFC 6749 §7.1)`,
    answer.exchange,
  );
  if (body.expires_in !== undefined) {
    t.check(
      typeof body.expires_in === 'number' && body.expires_in > 0,
      'RFC6749-5.1',
      `expires_in is ${JSON.stringify(body.expires_in)}, not a positive number`,
      answer.exchange,
    );
  }
  t.check(
    /no-store/i.test(answer.headers.get('cache-control') ?? ''),
    'RFC6749-5.1',
    'the token response lacks Cache-Control: no-store',
    answer.exchange,
  );
  return body;
}

/** Checks an error response of the token endpoint (RFC 6749 §5.2): status 400/401 and the `error` code. */
export function checkTokenError(
  t: ModuleContext,
  answer: HttpAnswer,
  expected: readonly string[],
  section: string,
  what: string,
  severity: 'fail' | 'warn' = 'fail',
): boolean {
  const body = answer.json as { error?: unknown } | undefined;
  const report = severity === 'fail' ? t.fail.bind(t) : t.warn.bind(t);
  if (answer.status === 200) {
    report(section, `${what}: the server issued tokens`, answer.exchange);
    return false;
  }
  if (answer.status !== 400 && answer.status !== 401) {
    report(
      'RFC6749-5.2',
      `${what}: status ${answer.status}, expected 400 (or 401 for client authentication)`,
      answer.exchange,
    );
    return false;
  }
  if (typeof body?.error !== 'string' || !expected.includes(body.error)) {
    report(
      'RFC6749-5.2',
      `${what}: error ${JSON.stringify(body?.error)}, expected ${expected.join(' or ')}`,
      answer.exchange,
    );
    return false;
  }
  return true;
}

/** What an ID token must match (OpenID Connect Core §3.1.3.7). */
export interface IdTokenExpectations {
  readonly client_id: string;
  readonly nonce?: string;
  /** Whether `max_age` was sent (then `auth_time` is required, §3.1.2.1). */
  readonly maxAge?: number;
  /** The access token, for `at_hash` when present (§3.1.3.8 / §3.3.2.11). */
  readonly accessToken?: string;
  /** Whether `nonce` must be absent (no nonce in the request). */
  readonly noNonce?: boolean;
}

/** The hash of `value` the way `at_hash` / `c_hash` are made (OpenID Connect Core §3.1.3.6). */
async function halfHash(alg: string, value: string): Promise<string> {
  const bits =
    alg.endsWith('512') || alg === 'EdDSA' || alg === 'Ed25519' ? 512 : alg.endsWith('384') ? 384 : 256;
  const digest = new Uint8Array(await crypto.subtle.digest(`SHA-${bits}`, new TextEncoder().encode(value)));
  return base64url.encode(digest.slice(0, digest.length / 2));
}

/**
 * Validates an ID token as a relying party must (OpenID Connect Core §3.1.3.7, §2): signature by
 * a key of the server's JWKS with an advertised algorithm, `iss`, `aud`, `azp`, `exp`, `iat`,
 * `nonce`, `sub`, `auth_time` when `max_age` was sent, `at_hash` when present. Returns the claims.
 */
export async function validateIdToken(
  t: ModuleContext,
  idToken: unknown,
  metadata: Metadata,
  jwks: JSONWebKeySet,
  expect: IdTokenExpectations,
  exchange?: Exchange,
): Promise<JWTPayload> {
  if (typeof idToken !== 'string')
    return t.stop('OIDCC-3.1.3.3', 'the token response has no id_token', exchange);
  let header: ReturnType<typeof decodeProtectedHeader>;
  try {
    header = decodeProtectedHeader(idToken);
  } catch {
    return t.stop('OIDCC-2', 'the id_token is not a JWS', exchange);
  }
  const alg = String(header.alg);
  const advertised = list(metadata, 'id_token_signing_alg_values_supported');
  t.check(
    alg !== 'none',
    'OIDCC-3.1.3.7',
    'the id_token is unsigned (alg none) though the client did not ask for it',
    exchange,
  );
  t.check(
    advertised.includes(alg),
    'OIDCC-3.1.3.7',
    `the id_token's alg ${alg} is not in id_token_signing_alg_values_supported`,
    exchange,
  );
  if (jwks.keys.filter((key) => key.use !== 'enc').length > 1) {
    t.check(
      typeof header.kid === 'string',
      'OIDCC-10.1',
      'the JWKS holds several signing keys but the id_token header names no kid',
      exchange,
    );
  }
  let claims: JWTPayload;
  try {
    ({ payload: claims } = await jwtVerify(idToken, createLocalJWKSet(jwks), {
      algorithms: [alg],
      // Time claims are checked below, each with its section.
      clockTolerance: Number.MAX_SAFE_INTEGER,
    }));
  } catch (error) {
    return t.stop(
      'OIDCC-3.1.3.7',
      `the id_token's signature does not verify with the server's JWKS: ${(error as Error).message}`,
      exchange,
    );
  }
  const now = Math.floor(Date.now() / 1000);
  t.check(
    claims.iss === metadata.issuer,
    'OIDCC-3.1.3.7',
    `iss is ${JSON.stringify(claims.iss)}, not the issuer`,
    exchange,
  );
  const aud = Array.isArray(claims.aud) ? claims.aud : [claims.aud];
  t.check(
    aud.includes(expect.client_id),
    'OIDCC-3.1.3.7',
    `aud ${JSON.stringify(claims.aud)} does not contain the client_id`,
    exchange,
  );
  if (aud.length > 1 || claims.azp !== undefined) {
    t.check(
      claims.azp === expect.client_id,
      'OIDCC-3.1.3.7',
      `azp is ${JSON.stringify(claims.azp)}, not the client_id`,
      exchange,
    );
  }
  if (t.check(typeof claims.exp === 'number', 'OIDCC-2', 'the id_token has no numeric exp', exchange)) {
    t.check(claims.exp! > now - 60, 'OIDCC-3.1.3.7', 'the id_token has expired', exchange);
  }
  if (t.check(typeof claims.iat === 'number', 'OIDCC-2', 'the id_token has no numeric iat', exchange)) {
    t.check(
      Math.abs(claims.iat! - now) < 300,
      'OIDCC-3.1.3.7',
      `iat is ${claims.iat}, more than 5 minutes from now (${now})`,
      exchange,
    );
  }
  const sub = claims.sub;
  t.check(
    typeof sub === 'string' && sub.length > 0 && sub.length <= 255,
    'OIDCC-2',
    'sub must be a string of at most 255 ASCII characters',
    exchange,
  );
  if (expect.nonce !== undefined) {
    t.check(
      claims.nonce === expect.nonce,
      'OIDCC-3.1.3.7',
      `nonce is ${JSON.stringify(claims.nonce)}, not the one sent`,
      exchange,
    );
  }
  if (expect.noNonce) {
    t.check(
      claims.nonce === undefined,
      'OIDCC-2',
      'the id_token carries a nonce though none was sent',
      exchange,
    );
  }
  if (expect.maxAge !== undefined) {
    t.check(
      typeof claims.auth_time === 'number',
      'OIDCC-3.1.2.1',
      'max_age was sent: the id_token must contain auth_time',
      exchange,
    );
  }
  if (claims.auth_time !== undefined) {
    t.check(
      typeof claims.auth_time === 'number' && claims.auth_time <= now + 60,
      'OIDCC-2',
      'auth_time is not a past time in seconds',
      exchange,
    );
  }
  if (typeof claims.at_hash === 'string' && expect.accessToken) {
    t.check(
      claims.at_hash === (await halfHash(alg, expect.accessToken)),
      'OIDCC-3.3.2.11',
      'at_hash does not match the access token',
      exchange,
    );
  }
  return claims;
}

/** A random URL-safe value (state, nonce, PKCE verifier). */
export function random(bytes = 32): string {
  return base64url.encode(crypto.getRandomValues(new Uint8Array(bytes)));
}

/** The S256 code challenge of a verifier (RFC 7636 §4.2). */
export async function s256(verifier: string): Promise<string> {
  return base64url.encode(
    new Uint8Array(await crypto.subtle.digest('SHA-256', new TextEncoder().encode(verifier))),
  );
}
