import type { Awaitable } from '../awaitable.js';
import type { Context } from '../context.js';
import type { InstanceSettings } from '../feature.js';
import {
  checkRevokedUserId,
  markUserRevoked,
  type RevokeUserOptions,
} from '../revocation/user-revocation.js';
import type { SessionLifecycle } from './lifecycle.js';
import { endSession } from './session-cookie.js';
import type { SessionUser } from './session-user.js';
import { listSessions } from './user-sessions.js';

/*
 * The session-ending code paths: every way a session ends goes through one of these (or through
 * `revokeSession` of `user-sessions.ts`), which end it in the store, emit the event, and report it
 * to the instance's session lifecycle (`lifecycle.ts`), so that what observes session ends (OpenID
 * Connect Back-Channel Logout) hears of every one, whoever ended it: the user, a relying party, the
 * host or an operator.
 */

/** What the session-ending paths report to: the instance's lifecycle (`InstanceSettings.sessions`). */
export type SessionEnding = Pick<InstanceSettings, 'sessions'>;

/**
 * Signs the browser that sent `request` out: deletes its session (`current`, read by the caller,
 * when there is one) and returns the `Set-Cookie` header value that expires the cookie; emits
 * `session.ended` and reports the session as ended. The logout page, RP-initiated logout and
 * `gatehouse.endSession` sign out through it.
 */
export async function signOut(
  ctx: Pick<Context, 'site' | 'storage' | 'session' | 'emit'>,
  sessions: SessionLifecycle,
  request: Request,
  current: SessionUser | null,
): Promise<string> {
  const expired = await endSession(ctx, request);
  if (current) {
    const userId = current.user.id;
    const { sid } = current.session.record;
    ctx.emit({ type: 'session.ended', userId, ...(sid === undefined ? {} : { sessionId: sid }) });
    if (sid !== undefined) sessions.ended([{ userId, sid }]);
  }
  return expired;
}

/**
 * `gatehouse.revokeUser`: the user's mark ({@link markUserRevoked}: everything issued so far stops
 * working, sessions included), and the user's live sessions reported as ended. They are listed
 * before the mark (after it, none is live): from the per-user index (`user-sessions.ts`), only when
 * something observes session ends. Rejects as {@link markUserRevoked} does (nothing revoked: retry).
 */
export async function revokeUser(
  ctx: Omit<Context, 'keys'> & SessionEnding,
  userId: string,
  options: RevokeUserOptions = {},
): Promise<void> {
  checkRevokedUserId(userId);
  const live = ctx.sessions.observesEnds ? await listSessions(ctx, userId) : [];
  await markUserRevoked(ctx, userId, options);
  ctx.sessions.ended(live.map((session) => ({ userId, sid: session.sessionId })));
}

/**
 * The safe order of deleting a user: first {@link revokeUser} (reason `deleted`), so that nothing
 * issued to the user works any more, on every instance sharing the grant store, not even an access
 * token at the bearer check, which never looks the user up; then `remove`, the host's own deletion
 * from its user store. If the revocation fails, nothing was removed (retry); if `remove` fails, the
 * user still exists but must sign in again (retry the deletion). Emits `user.revoked` then, once
 * `remove` resolved, `user.deleted`.
 */
export async function deleteUser(
  ctx: Omit<Context, 'keys'> & SessionEnding,
  userId: string,
  remove?: () => Awaitable<unknown>,
): Promise<void> {
  if (remove !== undefined && typeof remove !== 'function') {
    throw new TypeError('deleteUser: remove must be a function that deletes the user from your user store.');
  }
  await revokeUser(ctx, userId, { reason: 'deleted' });
  await remove?.();
  ctx.emit({ type: 'user.deleted', userId });
}
