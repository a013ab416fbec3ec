import type { AuthorizationCodeRecord, RefreshTokenRecord, SessionRecord } from '../storage/types.js';
import { hashSecret, randomSecret } from '../tokens/secrets.js';

/**
 * Record factories for the conformance cases. Times are based on the wall clock, because engines
 * may hand expiries to a server (Redis `PEXPIREAT`) that deletes records whose time has passed;
 * the cases then move the logical `now` forward to test expiry without sleeping.
 */

/** A fresh random hash, as Gatehouse would pass (`hashSecret` of a 256-bit secret). */
export function freshHash(): Promise<string> {
  return hashSecret(randomSecret());
}

/** A fresh random identifier (grant id, jti, user id). */
export function freshId(label: string): string {
  return `${label}-${randomSecret(undefined, 12)}`;
}

/** The base time of a case: now, rounded to the second so that every engine keeps it exactly. */
export function baseTime(): number {
  return Math.floor(Date.now() / 1000) * 1000;
}

/**
 * The `keepUntil - now` the cases pass to `redeemCode`: how long a consumed code is kept for replay
 * detection (Gatehouse passes the grant's lifetime; 10 min here, well past the codes' 60 s).
 */
export const KEEP_CONSUMED_CODE_MS = 600_000;

/** An unconsumed code of a fresh grant, issued at `now`, valid 60 s. */
export async function codeRecord(
  now: number,
  overrides: Partial<AuthorizationCodeRecord> = {},
): Promise<AuthorizationCodeRecord> {
  return {
    codeHash: await freshHash(),
    clientId: 'client-a',
    userId: freshId('user'),
    grantId: freshId('grant'),
    redirectUri: 'https://app.example/callback?x=1',
    scope: 'openid read',
    codeChallenge: 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM',
    authTime: now,
    expiresAt: now + 60_000,
    ...overrides,
  };
}

/** An unrotated refresh token of a fresh grant, issued at `now`, valid 1 h. */
export async function refreshRecord(
  now: number,
  overrides: Partial<RefreshTokenRecord> = {},
): Promise<RefreshTokenRecord> {
  return {
    tokenHash: await freshHash(),
    grantId: freshId('grant'),
    clientId: 'client-a',
    subject: { kind: 'user', userId: freshId('user') },
    scope: 'openid read',
    issuedAt: now,
    expiresAt: now + 3_600_000,
    ...overrides,
  };
}

/** A session of a fresh user, started at `now`, valid 1 h. */
export async function sessionRecord(
  now: number,
  overrides: Partial<SessionRecord> = {},
): Promise<SessionRecord> {
  return {
    idHash: await freshHash(),
    userId: freshId('user'),
    createdAt: now,
    lastSeenAt: now,
    expiresAt: now + 3_600_000,
    ...overrides,
  };
}

/** The record without the store-managed marker (`consumedAt` / `rotatedAt`). */
export function withoutMarker<T extends object>(record: T, marker: 'consumedAt' | 'rotatedAt'): T {
  const { [marker]: _, ...rest } = record as Record<string, unknown>;
  return rest as T;
}
