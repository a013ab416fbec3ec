import {
  calculateJwkThumbprint,
  decodeProtectedHeader,
  importJWK,
  type JWK,
  jwtVerify,
  type KeyObject,
} from 'jose';
import { sha256Base64url } from '../crypto/sha256.js';
import { fromEpochSeconds, toEpochSeconds } from '../time.js';
import { isCurrentNonce } from './nonce.js';
import type { DpopAlgorithm, ProofContext } from './settings.js';

export type { DpopChecks, ProofContext } from './settings.js';

/** A DPoP proof that passed every check of RFC 9449 §4.3: the key it proves possession of. */
export interface DpopProof {
  /** The JWK SHA-256 thumbprint of the proof's public key (RFC 7638), the `cnf.jkt` of bound tokens. */
  readonly jkt: string;
}

/**
 * The URIs a proof sent with `request` may name in `htu` (RFC 9449 §4.3 item 9): the request's
 * path at each of the server's configured public `origins` (an instance's issuer origin, a
 * resource's origin). Never the authority the request claims: the target URI's host comes from
 * the `Host` header (RFC 9110 §7.1), which the client writes, so trusting it would let a proof
 * made for another server at the same path pass here (§11.1: `htu` is what confines a proof to
 * one endpoint).
 */
export function requestHtus(origins: readonly string[], request: Request): readonly string[] {
  const { pathname } = new URL(request.url);
  return origins.map((origin) => origin + pathname);
}

/** The origin of an http(s) URL (scheme, host, port, normalised), or `undefined` for anything else. */
export function httpOrigin(uri: string): string | undefined {
  return httpUrl(uri)?.origin;
}

/** `uri` parsed when it is an absolute http(s) URL. */
function httpUrl(uri: string): URL | undefined {
  let url: URL;
  try {
    url = new URL(uri);
  } catch {
    return undefined;
  }
  return url.protocol === 'https:' || url.protocol === 'http:' ? url : undefined;
}

/** Why a proof was refused: `use_dpop_nonce` when only a (current) nonce is missing (§8). */
export interface DpopRefusal {
  readonly error: 'invalid_dpop_proof' | 'use_dpop_nonce';
  readonly description: string;
}

/** What the proof must be bound to. */
export interface ProofExpectations {
  /**
   * The URIs the request is known by at the server's configured origins (§4.3 item 9; query and
   * fragment ignored): see {@link requestHtus}.
   */
  readonly htu: readonly string[];
  /** The access token presented with the proof, whose hash the proof's `ath` must be (§4.3 item 12). */
  readonly accessToken?: string;
  /** Whether the proof must carry a current server nonce (§8, §9). */
  readonly requireNonce: boolean;
  /**
   * Who pays for remembering the proof's `jti` (a partition of the replay store): at the token
   * endpoint the client or its caller's network; absent, the access token presented with it
   * (`token:<its SHA-256>`), else the proof's key.
   */
  readonly payer?: string;
}

/** Longest accepted proof, in characters: an RSA-4096 key and the claims fit in a third of it. */
const MAX_PROOF_CHARS = 8192;
/** Longest accepted `jti`: it is kept (hashed) in the replay store. */
const MAX_JTI_CHARS = 256;
/** Private or symmetric key members a proof's `jwk` must not have (§4.2: a public key). */
const PRIVATE_MEMBERS = ['d', 'p', 'q', 'dp', 'dq', 'qi', 'oth', 'k'] as const;
/** Most imported proof keys kept, by their JWK: a client reuses its key, so proofs repeat it. */
const MAX_CACHED_KEYS = 1000;

interface ImportedKey {
  readonly key: CryptoKey | KeyObject | Uint8Array;
  readonly jkt: string;
}

const importedKeys = new Map<string, Promise<ImportedKey>>();

/**
 * The key of a proof's `jwk` header and its thumbprint, imported once per distinct key (bounded:
 * the oldest entry leaves first). Throws for a key jose cannot import for `alg`.
 */
function importProofKey(jwk: JWK, alg: DpopAlgorithm): Promise<ImportedKey> {
  const cacheKey = `${alg} ${JSON.stringify(jwk)}`;
  let imported = importedKeys.get(cacheKey);
  if (imported === undefined) {
    imported = (async () => ({
      key: await importJWK(jwk, alg),
      jkt: await calculateJwkThumbprint(jwk, 'sha256'),
    }))();
    imported.catch(() => importedKeys.delete(cacheKey));
    if (importedKeys.size >= MAX_CACHED_KEYS) importedKeys.delete(importedKeys.keys().next().value!);
    importedKeys.set(cacheKey, imported);
  }
  return imported;
}

/**
 * The `DPoP` header of a request: `undefined` without one, `null` when it is sent more than once
 * (§4.3 item 1: "exactly one DPoP HTTP request header field"). Repeated fields reach a Fetch
 * `Headers` joined by commas, which a compact JWS never contains.
 */
export function dpopHeader(request: Request): string | null | undefined {
  const value = request.headers.get('dpop');
  if (value === null) return undefined;
  return value.includes(',') ? null : value.trim();
}

/**
 * The normalised form of an `htu` or request URI for comparison (§4.3 item 9, RFC 3986 §6.2.2 and
 * §6.2.3): scheme and host lower-cased, default port dropped, dot segments resolved, an empty path
 * made `/`, query and fragment ignored. `undefined` for what is not an http(s) URI.
 */
export function normalisedHtu(uri: string): string | undefined {
  const url = httpUrl(uri);
  return url === undefined ? undefined : `${url.origin}${url.pathname}`;
}

const refusal = (description: string): DpopRefusal => ({ error: 'invalid_dpop_proof', description });

/**
 * Checks a DPoP proof (RFC 9449 §4.3), in the order of the section: one well-formed JWT; `typ`
 * `dpop+jwt`; `alg` one of the instance's asymmetric algorithms; a public `jwk` in the header,
 * whose key verifies the signature; `htm` the request's method; `htu` the request URI (both
 * normalised); `iat` within the proof lifetime, either side; `jti`; `ath` the hash of the access
 * token when one is presented; a current server nonce when required. Last, the `jti` is used once
 * (the instance's replay store, scoped to the key, kept until the proof could no longer pass the
 * `iat` check): a replayed proof is refused.
 */
export async function checkDpopProof(
  ctx: ProofContext,
  request: Request,
  proof: string,
  expect: ProofExpectations,
): Promise<DpopProof | DpopRefusal> {
  if (proof.length === 0 || proof.length > MAX_PROOF_CHARS) return refusal('The DPoP proof is malformed.');
  let header: ReturnType<typeof decodeProtectedHeader>;
  try {
    header = decodeProtectedHeader(proof);
  } catch {
    return refusal('The DPoP proof is not a JWS.');
  }
  if (header.typ !== 'dpop+jwt') return refusal('The DPoP proof must have typ "dpop+jwt".');
  const alg = header.alg as DpopAlgorithm;
  if (typeof header.alg !== 'string' || !ctx.settings.algorithms.includes(alg))
    return refusal(`The DPoP proof alg must be one of ${ctx.settings.algorithms.join(', ')}.`);
  const jwk = header.jwk;
  if (typeof jwk !== 'object' || jwk === null || Array.isArray(jwk))
    return refusal('The DPoP proof must carry its public key in the jwk header.');
  if (PRIVATE_MEMBERS.some((member) => member in jwk))
    return refusal('The jwk of a DPoP proof must be a public key.');
  let imported: ImportedKey;
  let payload: Awaited<ReturnType<typeof jwtVerify>>['payload'];
  try {
    imported = await importProofKey(jwk as JWK, alg);
    ({ payload } = await jwtVerify(proof, imported.key, { algorithms: [alg], typ: 'dpop+jwt' }));
  } catch {
    return refusal('The DPoP proof signature does not verify with its jwk.');
  }
  if (typeof payload.htm !== 'string' || payload.htm !== request.method)
    return refusal(`The DPoP proof htm must be the request method ${request.method}.`);
  const htu = typeof payload.htu === 'string' ? normalisedHtu(payload.htu) : undefined;
  if (htu === undefined || !expect.htu.some((uri) => normalisedHtu(uri) === htu))
    return refusal(
      "The DPoP proof htu must be the request URI at this server's public origin (without query and fragment).",
    );
  const now = ctx.clock.now();
  const window = ctx.settings.proofLifetime;
  if (typeof payload.iat !== 'number' || !Number.isFinite(payload.iat))
    return refusal('The DPoP proof has no iat.');
  if (Math.abs(toEpochSeconds(now) - payload.iat) > window)
    return refusal(`The DPoP proof iat is more than ${window} seconds from the server time.`);
  const { jti } = payload;
  if (typeof jti !== 'string' || jti === '' || jti.length > MAX_JTI_CHARS)
    return refusal(`The DPoP proof must have a jti of 1 to ${MAX_JTI_CHARS} characters.`);
  let tokenHash: string | undefined;
  if (expect.accessToken !== undefined) {
    tokenHash = await sha256Base64url(expect.accessToken);
    if (typeof payload.ath !== 'string' || payload.ath !== tokenHash)
      return refusal('The DPoP proof ath must be the hash of the access token.');
  }
  if (payload.nonce !== undefined || expect.requireNonce) {
    if (typeof payload.nonce !== 'string' || !(await isCurrentNonce(ctx, payload.nonce)))
      return { error: 'use_dpop_nonce', description: 'The DPoP proof must carry the current server nonce.' };
  }
  // Remembered until the proof's iat leaves the window, plus the clock tolerance.
  const expiresAt = fromEpochSeconds(payload.iat + window) + ctx.clock.toleranceSeconds * 1000 + 1000;
  const replayId = `dpop:${await sha256Base64url(`${imported.jkt} ${jti}`)}`;
  // Partitioned by who pays (issue 41): a flood of proofs fills only its payer's share.
  const payer = expect.payer ?? (tokenHash === undefined ? `jkt:${imported.jkt}` : `token:${tokenHash}`);
  if (!(await ctx.storage.replay.useOnce(replayId, Math.max(expiresAt, now + 1000), now, payer)))
    return refusal('The DPoP proof was already used (its jti is not new).');
  return { jkt: imported.jkt };
}

/** Whether a check's outcome is a refusal. */
export function isRefusal(outcome: DpopProof | DpopRefusal): outcome is DpopRefusal {
  return 'error' in outcome;
}
