import { parse, serialize } from 'cookie';
import type { Context } from '../../context.js';
import { hashSecret, randomSecret, timingSafeEqual } from '../../tokens/secrets.js';
import type { AuthorizationFlow } from '../authorize/flow.js';

/*
 * An interaction is bound to the browser that started it: a random secret in an HttpOnly cookie
 * (one per browser, reused by every interaction of it so that several tabs work), whose hash the
 * interaction record keeps. Whoever learns a reference (a leaked URL, a Referer, a shoulder) cannot
 * read, finish or resume it from another browser: it would need the cookie too. SameSite=Lax: the
 * cookie comes along on the top-level navigations of the flow (the client's redirect to authorize,
 * the host's page, the redirect back), never on cross-site subrequests or POSTs.
 */

const SHAPE = /^[A-Za-z0-9_-]{43}$/;

function cookieValue(flow: AuthorizationFlow, request: Request): string | undefined {
  const header = request.headers.get('cookie');
  if (!header) return undefined;
  const value = parse(header)[flow.interactions.cookieName];
  return value && SHAPE.test(value) ? value : undefined;
}

/** The request's binding secret (or a new one, with the `Set-Cookie` to send) and its hash. */
export async function browserBinding(
  ctx: Pick<Context, 'site' | 'randomBytes'>,
  flow: AuthorizationFlow,
  request: Request,
): Promise<{ hash: string; setCookie?: string }> {
  const existing = cookieValue(flow, request);
  if (existing) return { hash: await hashSecret(existing) };
  const secret = randomSecret(ctx.randomBytes);
  const setCookie = serialize(flow.interactions.cookieName, secret, {
    httpOnly: true,
    sameSite: 'lax',
    secure: ctx.site.secure,
    path: flow.interactions.cookiePath,
  });
  return { hash: await hashSecret(secret), setCookie };
}

/** Whether the request comes from the browser whose binding hash is `expected` (constant time). */
export async function isSameBrowser(
  flow: AuthorizationFlow,
  request: Request,
  expected: string,
): Promise<boolean> {
  const value = cookieValue(flow, request);
  if (value === undefined) return false;
  return timingSafeEqual(await hashSecret(value), expected);
}
