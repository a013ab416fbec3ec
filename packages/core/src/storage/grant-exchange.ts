import { scopeIncludes } from '../scope-syntax.js';
import type { Writable } from '../writable.js';
import { userSubject } from './subject.js';
import type {
  AuthorizationCodeRecord,
  CodeExchange,
  ExchangeCodeResult,
  ExchangeRefreshTokenResult,
  GrantRefusal,
  GrantStore,
  RecordExtensions,
  RefreshTokenExchange,
  RefreshTokenMint,
  RefreshTokenRecord,
} from './types.js';

/**
 * The rules of the grant store's exchanges (`exchangeCode`, `exchangeRefreshToken`), once: the
 * checks a code or refresh token must pass, the record an exchange stores, and the exchange in two
 * calls for a store without the one-step operation. The memory engine runs them inside its atomic
 * step; the Redis and PostgreSQL engines state them in Lua and SQL and judge a refusal with them.
 */

/** The DPoP key a code or refresh token is bound to (its `ext.dpopJkt`, a string), if any. */
export function boundJkt(ext: RecordExtensions | undefined): string | undefined {
  const jkt = ext?.dpopJkt;
  return typeof jkt === 'string' ? jkt : undefined;
}

/** `ext` bound to `jkt` (or to no key when `undefined`), the rest unchanged. */
export function withBinding(
  ext: RecordExtensions | undefined,
  jkt: string | undefined,
): RecordExtensions | undefined {
  const { dpopJkt: _previous, ...rest } = ext ?? {};
  if (jkt !== undefined) return { ...rest, dpopJkt: jkt };
  return Object.keys(rest).length === 0 ? undefined : rest;
}

/**
 * Whether a code of `scope` may start a refresh token: not an OpenID Connect request (`openid`)
 * unless `offline_access` was granted too (OpenID Connect Core §11: a refresh token is access
 * "while the End-User is not present", which the user consents to through that scope).
 */
export function offlineAccessGranted(scope: string): boolean {
  return !scopeIncludes(scope, 'openid') || scopeIncludes(scope, 'offline_access');
}

/**
 * The first check of {@link CodeExchange} that `code` fails, or `undefined`. The PKCE comparison is
 * of the verifier's digest with the public challenge (RFC 7636 §4.6), so it needs no constant time.
 */
export function codeRefusal(
  code: Pick<AuthorizationCodeRecord, 'clientId' | 'redirectUri' | 'codeChallenge' | 'ext'>,
  exchange: CodeExchange,
): GrantRefusal | undefined {
  if (code.clientId !== exchange.clientId) return 'client';
  // RFC 6749 §4.1.3: identical to the authorization request's, when that one named it.
  if (code.redirectUri === '' ? !exchange.redirectUriFitsDefault : exchange.redirectUri !== code.redirectUri)
    return 'redirect_uri';
  if (code.codeChallenge === undefined) {
    if (exchange.verifierChallenge !== undefined) return 'code_verifier_unexpected';
  } else if (exchange.verifierChallenge === undefined) return 'code_verifier_missing';
  else if (exchange.verifierChallenge !== code.codeChallenge) return 'code_verifier_mismatch';
  const jkt = boundJkt(code.ext);
  if (jkt !== undefined && exchange.dpopJkt !== jkt) return 'dpop_key';
  return undefined;
}

/** The first check of {@link RefreshTokenExchange} that `token` fails, or `undefined`. */
export function refreshTokenRefusal(
  token: Pick<RefreshTokenRecord, 'clientId' | 'ext'>,
  exchange: Pick<RefreshTokenExchange, 'clientId' | 'dpopJkt'>,
): GrantRefusal | undefined {
  if (token.clientId !== exchange.clientId) return 'client';
  const jkt = boundJkt(token.ext);
  if (jkt !== undefined && exchange.dpopJkt !== jkt) return 'dpop_key';
  return undefined;
}

/**
 * The refresh token a code exchange stores: the code's grant, user, scope, resources and
 * authentication (not its nonce, which only the first ID token carries), issued and granted at
 * `now`; its `ext` is the code's without `dpopJkt`, bound to `mint.dpopJkt` when given.
 */
export function refreshTokenFromCode(
  code: AuthorizationCodeRecord,
  mint: RefreshTokenMint,
  now: number,
): RefreshTokenRecord {
  const record: Writable<RefreshTokenRecord> = {
    tokenHash: mint.tokenHash,
    issuedAt: now,
    expiresAt: mint.expiresAt,
    grantId: code.grantId,
    clientId: code.clientId,
    subject: userSubject(code.userId),
    scope: code.scope,
  };
  if (code.audience !== undefined) record.audience = code.audience;
  record.authTime = code.authTime;
  if (code.sessionId !== undefined) record.sessionId = code.sessionId;
  if (code.acr !== undefined) record.acr = code.acr;
  if (code.amr !== undefined) record.amr = code.amr;
  record.grantedAt = now;
  const ext = withBinding(code.ext, mint.dpopJkt);
  if (ext !== undefined) record.ext = ext;
  return record;
}

/**
 * The successor a rotation stores: `previous` with the new hash and expiry, issued at `now`, not
 * rotated, and bound to `mint.dpopJkt` when given (a public client's token, once used with a proof,
 * stays bound to that key).
 */
export function rotatedRefreshToken(
  previous: RefreshTokenRecord,
  mint: RefreshTokenMint,
  now: number,
): RefreshTokenRecord {
  const { rotatedAt: _, ...rest } = previous;
  const next: Writable<RefreshTokenRecord> = {
    ...rest,
    tokenHash: mint.tokenHash,
    issuedAt: now,
    expiresAt: mint.expiresAt,
  };
  if (mint.dpopJkt !== undefined) next.ext = withBinding(previous.ext, mint.dpopJkt);
  return next;
}

const INVALID = { status: 'invalid' } as const;

/**
 * {@link GrantStore.exchangeCode} in two calls, for a store without it: `findCode`, the checks,
 * then the atomic `redeemCode` (which settles a race with another exchange of the same code).
 */
export async function exchangeCodeByLookup(
  grants: GrantStore,
  codeHash: string,
  exchange: CodeExchange,
  now: number,
): Promise<ExchangeCodeResult> {
  const code = await grants.findCode(codeHash, now);
  if (!code) return INVALID;
  const reason = codeRefusal(code, exchange);
  if (reason !== undefined) return { status: 'refused', reason };
  if (code.consumedAt !== undefined) return { status: 'replayed', code };
  const refreshToken =
    exchange.refreshToken !== undefined && offlineAccessGranted(code.scope)
      ? refreshTokenFromCode(code, exchange.refreshToken, now)
      : null;
  const result = await grants.redeemCode(codeHash, refreshToken, now, exchange.keepUntil);
  return result.status === 'redeemed'
    ? { status: 'redeemed', code: result.code, refreshTokenStored: refreshToken !== null }
    : result;
}

/**
 * {@link GrantStore.exchangeRefreshToken} in two calls, for a store without it: `findRefreshToken`,
 * the checks, then the atomic `rotateRefreshToken`.
 */
export async function exchangeRefreshTokenByLookup(
  grants: GrantStore,
  tokenHash: string,
  exchange: RefreshTokenExchange,
  now: number,
): Promise<ExchangeRefreshTokenResult> {
  const token = await grants.findRefreshToken(tokenHash, now);
  if (!token) return INVALID;
  const reason = refreshTokenRefusal(token, exchange);
  if (reason !== undefined) return { status: 'refused', reason };
  if (token.rotatedAt !== undefined) return { status: 'reused', previous: token };
  return grants.rotateRefreshToken(tokenHash, rotatedRefreshToken(token, exchange.next, now), now);
}

/** A code exchange on `grants`: its own one-step operation, or {@link exchangeCodeByLookup}. */
export function exchangeCodeIn(
  grants: GrantStore,
  codeHash: string,
  exchange: CodeExchange,
  now: number,
): Promise<ExchangeCodeResult> {
  return grants.exchangeCode
    ? grants.exchangeCode(codeHash, exchange, now)
    : exchangeCodeByLookup(grants, codeHash, exchange, now);
}

/** A refresh token exchange on `grants`: its own operation, or {@link exchangeRefreshTokenByLookup}. */
export function exchangeRefreshTokenIn(
  grants: GrantStore,
  tokenHash: string,
  exchange: RefreshTokenExchange,
  now: number,
): Promise<ExchangeRefreshTokenResult> {
  return grants.exchangeRefreshToken
    ? grants.exchangeRefreshToken(tokenHash, exchange, now)
    : exchangeRefreshTokenByLookup(grants, tokenHash, exchange, now);
}
