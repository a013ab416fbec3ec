import { type JWTPayload, type JWTVerifyGetKey, jwtVerify, type KeyObject } from 'jose';
import type { Context } from '../context.js';
import { hashSecret } from '../tokens/secrets.js';

/*
 * JWT assertions (RFC 7523 §3), verified the same way wherever they are presented: as a client's
 * `private_key_jwt` credentials (§2.2), as the `assertion` of the JWT bearer grant (§2.1), and as a
 * trusted issuer's token exchanged at the token endpoint (RFC 8693).
 */

/** RFC 7523 §2.1: the JWT bearer authorization grant type. */
export const JWT_BEARER_GRANT = 'urn:ietf:params:oauth:grant-type:jwt-bearer';

/**
 * Algorithms an assertion may be signed with (`token_endpoint_auth_signing_alg_values_supported`):
 * asymmetric only. No `none` (RFC 7523 §3 item 9 requires a signature) and no HMAC: a verifier
 * holding a public key must never treat it as an HMAC secret (RFC 8725 §3.1, §2.1).
 */
export const ASSERTION_SIGNING_ALGORITHMS = [
  'ES256',
  'ES384',
  'ES512',
  'EdDSA',
  'Ed25519',
  'PS256',
  'PS384',
  'PS512',
  'RS256',
  'RS384',
  'RS512',
] as const;

/**
 * The longest an assertion may live (`exp` minus now), in seconds. RFC 7523 §3 item 4 lets the
 * server reject assertions whose `exp` is unreasonably far ahead; the bound also bounds how long
 * the `jti` must be remembered. Client libraries sign for 60 s (oauth4webapi, openid-client), and
 * an ID-JAG lives 300 s at most (draft-ietf-oauth-identity-assertion-authz-grant).
 */
export const MAX_ASSERTION_LIFETIME_SECONDS = 300;

/** Longest assertion (or exchanged JWT) accepted, in characters (a JWT with an RSA-4096 signature is ~1 KiB). */
export const MAX_ASSERTION_LENGTH = 8192;

/** Longest `jti` accepted. */
const MAX_JTI_LENGTH = 256;

/** What an assertion must say, besides its signature and lifetime. */
export interface AssertionExpectations {
  /** The `iss` it must carry. */
  readonly issuer: string;
  /** The `sub` it must carry, when fixed (`private_key_jwt`: the client id). */
  readonly subject?: string;
  /** Accepted `aud` values (one must be present). */
  readonly audience: readonly string[];
  /** `aud` must be one string, not an array (FAPI 2.0 Security Profile §5.3.2.1). */
  readonly audienceAsString?: boolean;
  /**
   * How far ahead of the clock `nbf` and `iat` may be, in seconds, when more than the instance's
   * clock tolerance (FAPI 2.0 Security Profile §5.3.2.1: accept up to 10 s ahead).
   */
  readonly aheadSeconds?: number;
  /** The `typ` header it must carry (RFC 8725 §3.11), when fixed. */
  readonly typ?: string;
  /** Claims that must be present besides `exp` (`jti` for anything replay-protected). */
  readonly requiredClaims?: readonly string[];
}

/** A verified assertion's claims, or why there are none (`no-key`: no key matched its `kid`). */
export type AssertionOutcome = JWTPayload | 'no-key' | 'invalid';

/**
 * Verifies an assertion's signature by `key` (a key set, or one key) with an allowed asymmetric
 * algorithm, then `iss`, `sub`, `aud`, `typ`, `exp` (required), `nbf` and `iat`, with the instance's
 * clock and tolerance. The lifetime bound and replay are {@link useAssertionOnce}'s.
 */
export async function verifyAssertion(
  ctx: Pick<Context, 'clock'>,
  assertion: string,
  key: JWTVerifyGetKey | KeyObject | CryptoKey,
  expected: AssertionExpectations,
): Promise<AssertionOutcome> {
  if (assertion.length > MAX_ASSERTION_LENGTH) return 'invalid';
  try {
    const { payload } = await jwtVerify(assertion, key as JWTVerifyGetKey, {
      algorithms: [...ASSERTION_SIGNING_ALGORITHMS],
      issuer: expected.issuer,
      ...(expected.subject === undefined ? {} : { subject: expected.subject }),
      audience: [...expected.audience],
      ...(expected.typ === undefined ? {} : { typ: expected.typ }),
      requiredClaims: ['exp', ...(expected.requiredClaims ?? [])],
      currentDate: new Date(ctx.clock.now()),
      clockTolerance: Math.max(ctx.clock.toleranceSeconds, expected.aheadSeconds ?? 0),
    });
    if (typeof payload.exp !== 'number') return 'invalid';
    if (expected.audienceAsString && typeof payload.aud !== 'string') return 'invalid';
    return payload;
  } catch (error) {
    return (error as { code?: string }).code === 'ERR_JWKS_NO_MATCHING_KEY' ? 'no-key' : 'invalid';
  }
}

/**
 * Whether a verified assertion may be used now, once: its `exp` at most
 * {@link MAX_ASSERTION_LIFETIME_SECONDS} ahead (RFC 7523 §3 item 4), no `iat` in the future beyond
 * the clock tolerance (or `aheadSeconds`, when more), a string `jti` of at most 256 characters, never seen before from this
 * `issuer` (item 7: remembered in the replay store under a digest of `namespace`, issuer and `jti`,
 * so that two issuers' ids never collide and keys stay short). `false` for a replay.
 *
 * The `jti` is remembered for as long as the assertion could be accepted: until `exp` plus the
 * clock tolerance, which {@link verifyAssertion} also grants (kept only until `exp`, an assertion
 * was accepted again in the seconds after it). It is remembered in the issuer's own partition of
 * the replay store (`ReplayStore.useOnce`), or in `payer`'s (a self-registered client's: its
 * caller's network, so that many clients registered from one network share one), so that one
 * issuer fills only its own share and never locks out the others; `quota`, when given, is the
 * size of that share (new ids per window) instead of the store's.
 */
export async function useAssertionOnce(
  ctx: Pick<Context, 'clock' | 'storage'>,
  namespace: string,
  issuer: string,
  claims: JWTPayload,
  share: { readonly payer?: string | undefined; readonly quota?: number | undefined } = {},
  aheadSeconds = 0,
): Promise<boolean> {
  const { jti } = claims;
  if (typeof claims.exp !== 'number' || typeof jti !== 'string' || jti.length > MAX_JTI_LENGTH) return false;
  const now = ctx.clock.now();
  const tolerance = Math.max(ctx.clock.toleranceSeconds, aheadSeconds) * 1000;
  const exp = claims.exp * 1000;
  if (exp > now + MAX_ASSERTION_LIFETIME_SECONDS * 1000 + tolerance) return false;
  // RFC 7519 §4.1.6 leaves `iat` unchecked; one in the future is a clock that cannot be trusted,
  // and jose checks it only with `maxTokenAge` (which would make `iat` required).
  if (typeof claims.iat === 'number' && claims.iat * 1000 > now + tolerance) return false;
  const replayId = `${namespace}:${await hashSecret(`${issuer}\u0000${jti}`)}`;
  const partition = share.payer ?? `${namespace}:${await hashSecret(issuer)}`;
  return ctx.storage.replay.useOnce(
    replayId,
    Math.max(exp + tolerance, now + 1000),
    now,
    partition,
    share.quota,
  );
}
