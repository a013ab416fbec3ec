import type { Context } from '../context.js';
import type { UserRecord } from '../storage/types.js';
import { type ActiveSession, readSession } from './session-cookie.js';

/** The user behind a request's active session. */
export interface SessionUser {
  readonly user: UserRecord;
  readonly session: ActiveSession;
}

/**
 * The request's active session and its user, or `null` when there is no active session or its
 * user no longer exists (a deleted user's sessions stop working at once).
 */
export async function sessionUser(ctx: Context, request: Request): Promise<SessionUser | null> {
  const session = await readSession(ctx, request);
  if (!session) return null;
  const user = await ctx.users.findUser(session.record.userId);
  return user ? { user, session } : null;
}
