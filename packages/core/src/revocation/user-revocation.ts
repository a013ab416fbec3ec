import type { Awaitable } from '../awaitable.js';
import type { Context } from '../context.js';
import { ConfigurationError, UsageError } from '../errors.js';
import { CONSENT_TTL_MS } from '../oauth2/authorize/consent-lifetime.js';
import type { SessionRecord } from '../storage/types.js';

/** Options of `gatehouse.revokeUser`. */
export interface RevokeUserOptions {
  /**
   * Why the user is revoked (e.g. `'deleted'`, `'password_changed'`, `'compromised'`), passed on in
   * the `user.revoked` event for the host's audit log. Gatehouse does not interpret it.
   */
  readonly reason?: string;
}

/**
 * How long a user's mark must be kept: as long as anything issued or remembered just before it
 * could still be presented (the longest of every lifetime Gatehouse issues, plus the clock
 * tolerance that verification grants an access token past its `exp`, and the lifetime of a
 * remembered consent, which the mark also takes back). After that, everything it covers has
 * expired by itself, so the mark may expire too. One small record per revoked user.
 */
export function userRevocationLifetimeMs(ctx: Pick<Context, 'tokens' | 'clock'>): number {
  return Math.max((ctx.tokens.longestLifetime + ctx.clock.toleranceSeconds) * 1000, CONSENT_TTL_MS);
}

/**
 * Revokes everything issued to `userId` up to now, and every consent the user gave so far (each
 * client asks again): writes the user's mark (`GrantStore.revokeSubject`)
 * at `now`, kept for {@link userRevocationLifetimeMs}. Resolves once the store has it; from then on
 * every check of the user's access tokens, refresh tokens, codes and sessions issued at or before the
 * mark fails (access tokens by their `iat`, in whole seconds: see `isAccessTokenRevoked`). Rejects with
 * `ConfigurationError` when the grant store has no `revokeSubject` (a host engine written before it),
 * rather than pretending to revoke. The mark alone: `revokeUser` of `session/ending.ts` also reports
 * the user's sessions as ended (back-channel logout), and is what hosts and operators call.
 */
export async function markUserRevoked(
  ctx: Omit<Context, 'keys'>,
  userId: string,
  options: RevokeUserOptions = {},
): Promise<void> {
  checkRevokedUserId(userId);
  const { grants } = ctx.storage;
  if (typeof grants.revokeSubject !== 'function') {
    throw new ConfigurationError(
      'revokeUser: storage.grants has no revokeSubject (and subjectRevokedAt); see the upgrade note in docs/security.md.',
      { code: 'ERR_CONFIG_STORE_CAPABILITY', option: 'storage.grants' },
    );
  }
  const at = ctx.clock.now();
  await grants.revokeSubject(userId, at, at + userRevocationLifetimeMs(ctx));
  ctx.emit({
    type: 'user.revoked',
    userId,
    ...(options.reason === undefined ? {} : { reason: options.reason }),
  });
}

/** `revokeUser`'s check of its argument (a `UsageError` naming it). */
export function checkRevokedUserId(userId: unknown): asserts userId is string {
  if (typeof userId !== 'string' || userId === '') {
    throw new UsageError(
      'revokeUser: userId must be a non-empty string (the user id, the `sub` claim).',
      'ERR_INVALID_ARGUMENT',
      'userId',
    );
  }
}

/**
 * Whether a session was created at or before its user's mark (and so ended by `revokeUser`). The
 * memory engine answers synchronously; without `subjectRevokedAt` (older host engines) the answer
 * is `false` and only the user lookup ends a deleted user's session.
 */
export function sessionRevoked(
  ctx: Pick<Context, 'storage'>,
  record: SessionRecord,
  now: number,
): Awaitable<boolean> {
  const at = ctx.storage.grants.subjectRevokedAt?.(record.userId, now);
  if (at === undefined || at === null) return false;
  if (typeof at === 'number') return record.createdAt <= at;
  return Promise.resolve(at).then((mark) => mark !== null && record.createdAt <= mark);
}
