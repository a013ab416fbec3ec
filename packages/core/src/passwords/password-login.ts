import type { PasswordChecking } from '../context.js';
import { oauthError, ProtocolError } from '../errors.js';
import type { UserRecord } from '../storage/types.js';
import { attemptLimiter } from './attempt-limiter.js';
import { withinCredentialLimits } from './credential-limits.js';

/** What one password login attempt came to. */
export type PasswordAttempt =
  | { readonly outcome: 'succeeded'; readonly user: UserRecord }
  /** Wrong credentials, credentials beyond the limits, or a client gone before its check: all alike. */
  | { readonly outcome: 'failed' }
  /**
   * Not checked: `rate_limited` (429, the brute-force limit) or `busy` (503, too many password
   * checks in flight). `error` is the answer, with its `Retry-After`.
   */
  | { readonly outcome: 'refused'; readonly reason: 'rate_limited' | 'busy'; readonly error: ProtocolError };

const FAILED: PasswordAttempt = { outcome: 'failed' };

/**
 * One username/password attempt of the login form or the Auth API, in the order that keeps what an
 * unauthenticated client can make the server store or compute bounded:
 *
 * 1. A full password-check queue refuses at once (`busy`), before anything is charged: it checks
 *    no password, so it costs the client no guess (and the real user no lockout).
 * 2. The brute-force limit (`attempt-limiter.ts`) refuses (`rate_limited`, nothing written) or
 *    charges the attempt. Credentials beyond `CREDENTIAL_LIMITS` are charged to the address only
 *    and fail without a check: no stored password can match them.
 * 3. A client already gone (`request.signal` aborted, e.g. a reset connection) gets no check: the
 *    attempt stays charged as a failure, so resetting buys nothing.
 * 4. The check runs in the instance's {@link PasswordCheckGate}, skipped if the client leaves while
 *    waiting; a success refunds the attempt.
 */
export async function attemptPasswordLogin(
  ctx: PasswordChecking,
  request: Request,
  username: string,
  password: string,
): Promise<PasswordAttempt> {
  const within = withinCredentialLimits(username, password);
  if (within && ctx.limits.passwordChecks.full) return busy();
  const limiter = attemptLimiter(ctx, request, within ? username : undefined);
  try {
    await limiter.reserve();
  } catch (error) {
    if (error instanceof ProtocolError && error.code === 'too_many_requests') {
      return { outcome: 'refused', reason: 'rate_limited', error };
    }
    throw error;
  }
  if (!within) return FAILED;
  const checked = await ctx.limits.passwordChecks.run(
    // Present whenever a password route is served (checked by resolve-options.ts).
    () => ctx.users.verifyPassword!(username, password),
    request.signal,
  );
  // Busy here only when the queue filled up while the limit was consulted: the attempt stays charged.
  if (checked.status === 'busy') return busy();
  if (checked.status === 'gone' || checked.value === null) return FAILED;
  await limiter.succeeded();
  return { outcome: 'succeeded', user: checked.value };
}

function busy(): PasswordAttempt {
  return {
    outcome: 'refused',
    reason: 'busy',
    error: oauthError(
      'temporarily_unavailable',
      'Too many password checks are in progress; try again shortly.',
      { retryAfter: 1 },
    ),
  };
}
