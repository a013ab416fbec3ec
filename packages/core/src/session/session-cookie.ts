import { parse, serialize } from 'cookie';
import type { Context } from '../context.js';
import { base64url } from '../crypto/encoding.js';
import type { SessionRecord } from '../storage/types.js';
import { addSeconds } from '../time.js';
import { hashSecret, randomSecret } from '../tokens/secrets.js';
import { indexSession } from './user-sessions.js';

/** An active session, as read from a request. */
export interface ActiveSession {
  readonly record: SessionRecord;
  /** Epoch ms when the session ends if left idle (or at its absolute end, whichever is first). */
  readonly endsAt: number;
}

/**
 * Attributes of Gatehouse's cookies: HttpOnly (no script reads them), SameSite=Lax (not sent on
 * cross-site subrequests or POSTs), Path = instance path (instances on one host stay apart),
 * Secure on https, and no Domain (host-only, so sibling subdomains never receive them).
 */
export function cookieAttributes(ctx: Pick<Context, 'site'>) {
  return {
    httpOnly: true,
    sameSite: 'lax' as const,
    secure: ctx.site.secure,
    path: ctx.site.basePath === '' ? '/' : ctx.site.basePath,
  };
}

/** {@link cookieAttributes} with the session cookie's own `Path` (`session.cookiePath`). */
function sessionCookieAttributes(ctx: Pick<Context, 'site' | 'session'>) {
  return { ...cookieAttributes(ctx), path: ctx.session.cookiePath };
}

/**
 * Whether a browser sends the session cookie to `pathname`: it is the cookie's `Path` or below it
 * (RFC 6265 §5.1.4 path-match).
 */
export function sessionCookieReaches(ctx: Pick<Context, 'session'>, pathname: string): boolean {
  const path = ctx.session.cookiePath;
  return path === '/' || pathname === path || pathname.startsWith(`${path}/`);
}

/**
 * The session cookie value of a request, if any. With duplicated cookies the first wins (RFC 6265
 * §5.4 orders the most specific path first).
 */
export function sessionCookieValue(ctx: Pick<Context, 'session'>, request: Request): string | undefined {
  const header = request.headers.get('cookie');
  if (!header) return undefined;
  const value = parse(header)[ctx.session.cookieName];
  return value && value.length <= 256 ? value : undefined;
}

/**
 * The active session of a request: the cookie's hash found in the store, within the absolute and
 * idle timeouts. Activity slides the idle timeout (touched at most once a minute to spare the store).
 */
export async function readSession(
  ctx: Pick<Context, 'clock' | 'storage' | 'session'>,
  request: Request,
): Promise<ActiveSession | null> {
  const value = sessionCookieValue(ctx, request);
  if (!value) return null;
  const now = ctx.clock.now();
  const idHash = await hashSecret(value);
  const record = await ctx.storage.sessions.findSession(idHash, now);
  if (!record) return null;
  const idleEnd = addSeconds(record.lastSeenAt, ctx.session.idleTimeout);
  if (idleEnd <= now) {
    await ctx.storage.sessions.deleteSession(idHash);
    return null;
  }
  if (now - record.lastSeenAt > 60_000) await ctx.storage.sessions.touchSession(idHash, now);
  const endsAt = Math.min(record.expiresAt, Math.max(idleEnd, addSeconds(now, ctx.session.idleTimeout)));
  return { record, endsAt };
}

/** How the user of a new session authenticated, when someone else (the host) did it. */
export interface SessionAuthentication {
  /** When the user authenticated (epoch ms, at most now): the session's `createdAt`, OIDC `auth_time`. */
  readonly authTime?: number;
  /** Authentication context class reference (`acr`). */
  readonly acr?: string;
  /** Authentication methods references (`amr`, RFC 8176). */
  readonly amr?: readonly string[];
}

/**
 * Starts a new session for a user: always a fresh random id (never one the client proposed, so
 * session fixation is impossible). Returns the `Set-Cookie` header value. `authentication` carries
 * a host's sign-in (interactions): the session then starts at its `authTime` (the absolute
 * timeout still counts from now) and keeps its `acr` / `amr` for the ID tokens of its grants.
 */
export async function startSession(
  ctx: Pick<Context, 'site' | 'clock' | 'randomBytes' | 'logger' | 'storage' | 'session'>,
  userId: string,
  authentication: SessionAuthentication = {},
): Promise<{ setCookie: string; record: SessionRecord }> {
  const id = randomSecret(ctx.randomBytes);
  const now = ctx.clock.now();
  const { authTime, acr, amr } = authentication;
  const record: SessionRecord = {
    idHash: await hashSecret(id),
    // The public id (OIDC `sid`) is drawn apart from the cookie's secret: it may be shown to clients.
    sid: base64url(ctx.randomBytes(16)),
    userId,
    createdAt: authTime === undefined ? now : Math.min(authTime, now),
    lastSeenAt: now,
    expiresAt: addSeconds(now, ctx.session.absoluteTimeout),
    ...(acr === undefined ? {} : { acr }),
    ...(amr === undefined ? {} : { amr }),
  };
  await ctx.storage.sessions.createSession(record);
  await indexSession(ctx, record); // so that the operator can list and end it (gatehouse.listSessions)
  const setCookie = serialize(ctx.session.cookieName, id, {
    ...sessionCookieAttributes(ctx),
    maxAge: ctx.session.absoluteTimeout,
  });
  return { setCookie, record };
}

/** Ends the request's session (if any) and returns the `Set-Cookie` header that expires the cookie. */
export async function endSession(
  ctx: Pick<Context, 'site' | 'storage' | 'session'>,
  request: Request,
): Promise<string> {
  const value = sessionCookieValue(ctx, request);
  if (value) await ctx.storage.sessions.deleteSession(await hashSecret(value));
  return serialize(ctx.session.cookieName, '', {
    ...sessionCookieAttributes(ctx),
    maxAge: 0,
    expires: new Date(0),
  });
}
