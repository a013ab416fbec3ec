import type { Context } from '../../context.js';
import { oauthError } from '../../errors.js';
import { endSession } from '../../session/session-cookie.js';
import { type SessionUser, sessionUser } from '../../session/session-user.js';
import { checkHostUser } from '../interaction/host-user.js';
import type { AuthorizationFlow } from './flow.js';

/**
 * Who is signed in for an authorization request, and how: from Gatehouse's own session, or from
 * the host (its `currentUser` hook, or a finished interaction). What a code carries into tokens.
 */
export interface Authentication {
  readonly userId: string;
  /** When the user authenticated (epoch ms): `auth_time`. */
  readonly authTime: number;
  readonly acr?: string;
  readonly amr?: readonly string[];
  /** The public id of Gatehouse's session (`sid`), when there is one. */
  readonly sessionId?: string;
  /** The login name to show on the built-in consent page, when known. */
  readonly username?: string;
}

/** The authentication of one of Gatehouse's own sessions. */
export function sessionAuthentication(current: SessionUser): Authentication {
  const { record } = current.session;
  return {
    userId: current.user.id,
    authTime: record.createdAt,
    ...(record.acr === undefined ? {} : { acr: record.acr }),
    ...(record.amr === undefined ? {} : { amr: record.amr }),
    ...(record.sid === undefined ? {} : { sessionId: record.sid }),
    ...(current.user.username === undefined ? {} : { username: current.user.username }),
  };
}

/**
 * The signed-in user of an authorization request. With an `interactions.currentUser` hook the host
 * decides (its session is the source of truth): a user is signed in as the host says (the `sid` of
 * Gatehouse's own session is kept when that session is the same user's); `null` means nobody, and a
 * Gatehouse session of that browser is ended; `undefined` leaves it to Gatehouse's session. A hook
 * that throws is a 503 (`temporarily_unavailable`), one answering a malformed user a 500 (logged).
 */
export async function currentAuthentication(
  ctx: Pick<Context, 'site' | 'clock' | 'logger' | 'storage' | 'users' | 'session'>,
  flow: AuthorizationFlow,
  request: Request,
): Promise<Authentication | null> {
  const hook = flow.interactions.currentUser;
  if (hook === undefined) {
    const current = await sessionUser(ctx, request);
    return current && sessionAuthentication(current);
  }
  let answer: unknown;
  try {
    answer = await hook(request);
  } catch (error) {
    ctx.logger.error('gatehouse: interactions.currentUser threw', error);
    throw oauthError(
      'temporarily_unavailable',
      'The sign-in state could not be read. Try again in a moment.',
    );
  }
  const gatehouseSession = await sessionUser(ctx, request);
  if (answer === undefined) return gatehouseSession && sessionAuthentication(gatehouseSession);
  if (answer === null) {
    // Signed out of the host: signed out here too.
    if (gatehouseSession) await endSession(ctx, request);
    return null;
  }
  const checked = checkHostUser(answer, ctx.clock.now(), ctx.clock.toleranceSeconds);
  if (checked.ok && checked.user.authTime === undefined) {
    ctx.logger.error(
      'gatehouse: interactions.currentUser answered a user without authTime (when they signed in, epoch ms).',
    );
    throw oauthError('server_error', 'The sign-in state could not be read.');
  }
  if (!checked.ok) {
    ctx.logger.error(`gatehouse: interactions.currentUser answered a malformed user: ${checked.problem}.`);
    throw oauthError('server_error', 'The sign-in state could not be read.');
  }
  const { user } = checked;
  const sameUser = gatehouseSession?.user.id === user.sub;
  if (gatehouseSession && !sameUser) await endSession(ctx, request); // another user now: the host decides
  const sid = sameUser ? gatehouseSession.session.record.sid : undefined;
  return {
    userId: user.sub,
    authTime: user.authTime!,
    ...(user.acr === undefined ? {} : { acr: user.acr }),
    ...(user.amr === undefined ? {} : { amr: user.amr }),
    ...(sid === undefined ? {} : { sessionId: sid }),
  };
}
