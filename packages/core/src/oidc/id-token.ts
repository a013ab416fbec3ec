import { compactVerify, decodeProtectedHeader } from 'jose';
import type { Context, InstanceClock, TokenPolicy } from '../context.js';
import { base64url, utf8 } from '../crypto/encoding.js';
import { nativeCrypto } from '../crypto/native-crypto.js';
import { freshKeySet, type KeySet, type SigningAlgorithm, verificationKeyOf } from '../tokens/keys.js';

/** What goes into an ID token (OpenID Connect Core §2), besides what the instance knows. */
export interface IdTokenContent {
  /** The user: `sub`. */
  readonly userId: string;
  /** The client: `aud` (its only audience, so `azp` is not required, Core §2). */
  readonly clientId: string;
  /** When the user authenticated, epoch ms: `auth_time` (in seconds); unknown for grants older than it. */
  readonly authTime?: number;
  /** The authorization request's `nonce`, echoed exactly (Core §3.1.3.6); absent on refreshes. */
  readonly nonce?: string;
  /** The public session id, for logout (Front-/Back-Channel Logout 1.0 `sid`). */
  readonly sid?: string;
  /** The access token issued alongside: its hash is `at_hash` (Core §3.1.3.6). */
  readonly accessToken?: string;
  /** Authentication context class reference of the sign-in (`acr`, Core §2), when known. */
  readonly acr?: string;
  /** Authentication methods references of the sign-in (`amr`, Core §2, RFC 8176), when known. */
  readonly amr?: readonly string[];
  /** Claims of the user the granted scopes allow (Core §5.4), already filtered. */
  readonly claims?: Readonly<Record<string, unknown>>;
  /** The JWS algorithm: the client's `id_token_signed_response_alg`, RS256 by default. */
  readonly algorithm: SigningAlgorithm;
}

/** Claims an ID token sets itself, which user claims must never override. */
const PROTOCOL_CLAIMS = new Set([
  'iss',
  'sub',
  'aud',
  'exp',
  'iat',
  'nbf',
  'jti',
  'auth_time',
  'nonce',
  'acr',
  'amr',
  'azp',
  'at_hash',
  'c_hash',
  'sid',
]);

/**
 * Signs an ID token (OpenID Connect Core §2, §3.1.3.6): header `alg`, `typ: JWT`, `kid`; claims
 * `iss` (byte-equal to the discovery document's `issuer`), `sub`, `aud`, `exp`, `iat`, `auth_time`,
 * and `nonce`, `acr`, `amr`, `at_hash`, `sid` when known, then the user's claims for the granted scopes. It lives
 * as long as the access token issued with it (`accessTokenTtl`). The key is the instance's first
 * key of `algorithm`; throws when it holds none (the caller checks {@link idTokenAlgorithm} first).
 */
export async function signIdToken(
  ctx: Pick<Context, 'issuer' | 'keys'> & {
    readonly clock: Pick<InstanceClock, 'now'>;
    readonly tokens: Pick<TokenPolicy, 'accessTokenTtl'>;
  },
  content: IdTokenContent,
): Promise<string> {
  let keys = freshKeySet(ctx.keys);
  if (keys instanceof Promise) keys = await keys;
  const signer = keys.signers.get(content.algorithm);
  if (!signer) throw new Error(`No ${content.algorithm} key to sign the ID token with.`);
  const iat = Math.floor(ctx.clock.now() / 1000);
  const payload: Record<string, unknown> = {};
  for (const [name, value] of Object.entries(content.claims ?? {}))
    if (!PROTOCOL_CLAIMS.has(name)) payload[name] = value;
  Object.assign(payload, {
    iss: ctx.issuer,
    sub: content.userId,
    aud: content.clientId,
    exp: iat + ctx.tokens.accessTokenTtl,
    iat,
  });
  if (content.authTime !== undefined) payload.auth_time = Math.floor(content.authTime / 1000);
  if (content.nonce !== undefined) payload.nonce = content.nonce;
  if (content.acr !== undefined) payload.acr = content.acr;
  if (content.amr !== undefined && content.amr.length > 0) payload.amr = [...content.amr];
  if (content.accessToken !== undefined)
    payload.at_hash = await tokenHash(content.accessToken, content.algorithm);
  if (content.sid !== undefined) payload.sid = content.sid;
  const signingInput = `${encodedIdTokenHeader(signer, content.algorithm)}.${base64url(utf8(JSON.stringify(payload)))}`;
  return `${signingInput}.${await signer.sign(signingInput)}`;
}

/**
 * The encoded JWS header of a signer's ID tokens (`alg`, `typ: JWT`, `kid`: constant per key), made
 * once per signer as access tokens' is (`KeySet.encodedHeader`); a rotated key set brings new signers.
 */
const idTokenHeaders = new WeakMap<object, string>();
function encodedIdTokenHeader(signer: { readonly kid: string }, algorithm: SigningAlgorithm): string {
  let header = idTokenHeaders.get(signer);
  if (header === undefined) {
    header = base64url(utf8(JSON.stringify({ alg: algorithm, typ: 'JWT', kid: signer.kid })));
    idTokenHeaders.set(signer, header);
  }
  return header;
}

/**
 * `at_hash` (OpenID Connect Core §3.1.3.6): the left half of the hash of the token's ASCII bytes,
 * base64url. The hash is the one of the JWS algorithm: SHA-256 for RS256 and ES256, SHA-512 for
 * EdDSA with Ed25519 (as the OpenID Foundation's libraries, oauth4webapi among them, compute it).
 */
export async function tokenHash(token: string, algorithm: SigningAlgorithm): Promise<string> {
  const name = algorithm === 'EdDSA' ? 'sha512' : 'sha256';
  const digest =
    nativeCrypto !== undefined
      ? new Uint8Array(nativeCrypto.createHash(name).update(token).digest())
      : new Uint8Array(await crypto.subtle.digest(name === 'sha512' ? 'SHA-512' : 'SHA-256', utf8(token)));
  return base64url(digest.subarray(0, digest.length / 2));
}

/**
 * The algorithm of a client's ID tokens: its registered `id_token_signed_response_alg`, else RS256
 * (Core §3.1.3.7). An instance without an RS256 key (set up before it was an OpenID Provider) signs
 * with the access tokens' algorithm instead, and discovery says so; relying parties that insist on
 * RS256 then need the instance to add a `generateKeys('RS256')` key.
 */
export function idTokenAlgorithm(
  keys: Pick<KeySet, 'signers' | 'algorithm'>,
  client: { readonly idTokenSignedResponseAlg?: SigningAlgorithm },
): SigningAlgorithm {
  if (client.idTokenSignedResponseAlg !== undefined) return client.idTokenSignedResponseAlg;
  return keys.signers.has('RS256') ? 'RS256' : keys.algorithm;
}

/** What an ID token of this instance says about who it was issued for. */
export interface IdTokenHint {
  /** The user. */
  readonly sub: string;
  /** The clients it was issued to (`aud`). */
  readonly audiences: readonly string[];
  /** The session it was issued in, when it says. */
  readonly sid?: string;
}

/** Longest ID token accepted as a hint: ours are far below; anything longer is not ours. */
const MAX_ID_TOKEN_LENGTH = 8192;

/**
 * Identifies the user and client of an ID token this instance issued, given back as
 * `id_token_hint` (Core §3.1.2.1, RP-Initiated Logout 1.0 §2): the signature must verify with one
 * of the instance's keys, in that key's own algorithm (never `none`), and `iss` must be the
 * issuer. Expiry is deliberately ignored: a hint identifies, it does not authenticate, and
 * RP-Initiated Logout §2 says an expired one is to be accepted. Access tokens (`typ: at+jwt`) are
 * refused. Returns `null` for anything else.
 */
export async function verifyIdTokenHint(
  ctx: Pick<Context, 'issuer' | 'keys'>,
  token: string,
): Promise<IdTokenHint | null> {
  if (token.length > MAX_ID_TOKEN_LENGTH) return null;
  let kid: string | undefined;
  let typ: string | undefined;
  try {
    ({ kid, typ } = decodeProtectedHeader(token));
  } catch {
    return null;
  }
  if (kid === undefined || typ?.toLowerCase() === 'at+jwt') return null;
  let verifier = verificationKeyOf(ctx.keys, kid);
  if (verifier instanceof Promise) verifier = await verifier;
  if (!verifier) return null;
  const { key, algorithm } = verifier;
  let payload: Record<string, unknown>;
  try {
    const verified = await compactVerify(token, key, { algorithms: [algorithm] });
    payload = JSON.parse(new TextDecoder().decode(verified.payload)) as Record<string, unknown>;
  } catch {
    return null;
  }
  if (typeof payload !== 'object' || payload === null || payload.iss !== ctx.issuer) return null;
  const { sub, aud, sid } = payload;
  const audiences = typeof aud === 'string' ? [aud] : Array.isArray(aud) ? aud : [];
  if (typeof sub !== 'string' || audiences.length === 0 || !audiences.every((a) => typeof a === 'string'))
    return null;
  if (sid !== undefined && typeof sid !== 'string') return null;
  return { sub, audiences: audiences as string[], ...(sid === undefined ? {} : { sid }) };
}
