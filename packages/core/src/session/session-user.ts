import type { Context } from '../context.js';
import { sessionRevoked } from '../revocation/user-revocation.js';
import type { UserRecord } from '../storage/types.js';
import { type ActiveSession, readSession } from './session-cookie.js';

/** The user behind a request's active session. */
export interface SessionUser {
  readonly user: UserRecord;
  readonly session: ActiveSession;
}

/**
 * The request's active session and its user, or `null` when there is no active session, its user
 * no longer exists (a deleted user's sessions stop working at once), or it was created at or before
 * the user's mark (`revokeUser`; the session is then deleted). The mark and the user are asked
 * concurrently, so a remote grant store adds a query but no waiting to the session path.
 */
export async function sessionUser(
  ctx: Pick<Context, 'clock' | 'storage' | 'users' | 'session'>,
  request: Request,
): Promise<SessionUser | null> {
  const session = await readSession(ctx, request);
  if (!session) return null;
  const { record } = session;
  const [user, revoked] = await Promise.all([
    ctx.users.findUser(record.userId),
    sessionRevoked(ctx, record, ctx.clock.now()),
  ]);
  if (revoked) {
    await ctx.storage.sessions.deleteSession(record.idHash);
    return null;
  }
  return user ? { user, session } : null;
}
