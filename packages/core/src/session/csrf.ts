import { parse, serialize } from 'cookie';
import type { Context } from '../context.js';
import { oauthError, type ProtocolError } from '../errors.js';
import type { Params } from '../http/form.js';
import { isForeignBrowserRequest, isSameOrigin } from '../http/origin.js';
import { randomSecret, timingSafeEqual } from '../tokens/secrets.js';
import { cookieAttributes } from './session-cookie.js';

/*
 * CSRF protection of Gatehouse's own forms (login, consent, logout), stateless "double submit":
 * a random token in a cookie and the same token in a hidden form field. A cross-site attacker can
 * make the browser send the cookie but can neither read it nor set it (HttpOnly, SameSite=Strict,
 * host-only), so it cannot put the matching value in the form. The Origin / Sec-Fetch-Site check
 * comes first and also covers what double submit alone does not: a sibling subdomain that tosses
 * its own cookie still posts with its own Origin, which is refused.
 */

const TOKEN_SHAPE = /^[A-Za-z0-9_-]{43}$/;

/** The CSRF cookie's name: the session cookie's name with a `_csrf` suffix. */
export function csrfCookieName(ctx: Pick<Context, 'session'>): string {
  return `${ctx.session.cookieName}_csrf`;
}

/** The CSRF token for a page, with the `Set-Cookie` to send when a new one had to be made. */
export interface PageCsrfToken {
  readonly token: string;
  readonly setCookie?: string;
}

/**
 * The token to embed in a form: the request's CSRF cookie when it has one (so that several open
 * tabs keep working), else a new 256-bit random token to set.
 */
export function pageCsrfToken(
  ctx: Pick<Context, 'site' | 'randomBytes' | 'session'>,
  request: Request,
): PageCsrfToken {
  const existing = csrfCookieValue(ctx, request);
  if (existing) return { token: existing };
  const token = randomSecret(ctx.randomBytes);
  const setCookie = serialize(csrfCookieName(ctx), token, { ...cookieAttributes(ctx), sameSite: 'strict' });
  return { token, setCookie };
}

function csrfCookieValue(ctx: Pick<Context, 'session'>, request: Request): string | undefined {
  const header = request.headers.get('cookie');
  if (!header) return undefined;
  const value = parse(header)[csrfCookieName(ctx)];
  return value && TOKEN_SHAPE.test(value) ? value : undefined;
}

/** Whether the posted `csrf_token` equals the CSRF cookie (constant-time comparison). */
export async function hasValidCsrfToken(
  ctx: Pick<Context, 'session'>,
  request: Request,
  params: Params,
): Promise<boolean> {
  const cookie = csrfCookieValue(ctx, request);
  const posted = params.get('csrf_token');
  if (!cookie || posted === undefined) return false;
  return timingSafeEqual(cookie, posted);
}

/** 403 for a cross-site browser request. */
export function crossSiteRefused(ctx: Pick<Context, 'site' | 'logger'>, request: Request): ProtocolError {
  const misaddressed = misaddressedOrigin(ctx, request);
  if (misaddressed === null) {
    return oauthError('forbidden', 'Cross-site requests to this form are refused.');
  }
  // The page was served by this very server under another name (127.0.0.1 for localhost, a proxy's
  // inner address): not an attack but a wrong address, so say which one to use.
  if (warnedOrigins.size < MAX_WARNED_ORIGINS && !warnedOrigins.has(misaddressed)) {
    warnedOrigins.add(misaddressed);
    ctx.logger.warn(
      `gatehouse: a form was posted from ${misaddressed}, but the issuer's origin is ${ctx.site.origin}; ` +
        "browsers must open the site at the issuer's address (or set the issuer / the proxy settings to match).",
    );
  }
  return oauthError(
    'forbidden',
    `This page was opened at ${misaddressed}, but this server's address is ${ctx.site.origin}. ` +
      `Open ${ctx.site.origin} in the browser and sign in there.`,
  );
}

/** Warnings of {@link crossSiteRefused} are logged once per origin, for this many origins at most. */
const MAX_WARNED_ORIGINS = 16;
const warnedOrigins = new Set<string>();

/**
 * The `Origin` of a refused form post when it is the request's own origin (the browser is on this
 * server, under a name other than the issuer's), else `null` (a genuinely foreign site).
 */
function misaddressedOrigin(ctx: Pick<Context, 'site'>, request: Request): string | null {
  const origin = request.headers.get('origin');
  if (origin === null || origin === 'null' || origin === ctx.site.origin || origin.length > 256) return null;
  try {
    return new URL(request.url).origin === origin ? origin : null;
  } catch {
    return null;
  }
}

/** 403 for a form posted without the matching CSRF token. */
export function formExpired(): ProtocolError {
  return oauthError(
    'forbidden',
    'The form has expired or was not sent by this site. Reload the page and try again.',
  );
}

/**
 * Guards a POST of one of Gatehouse's forms: refuses foreign origins (an `Origin` other than the
 * issuer's, `Origin: null` without `Sec-Fetch-Site: same-origin`, or a cross-site
 * `Sec-Fetch-Site`), then requires the double-submitted token. Throws 403 `forbidden`.
 */
export async function checkFormPost(
  ctx: Pick<Context, 'site' | 'logger' | 'session'>,
  request: Request,
  params: Params,
): Promise<void> {
  if (isForeignBrowserRequest(ctx, request)) throw crossSiteRefused(ctx, request);
  if (!(await hasValidCsrfToken(ctx, request, params))) throw formExpired();
}

/**
 * Guards a POST that may also come from a script of the instance's own origin (logout): refused
 * when cross-site; accepted when the browser proves it is same-origin, or with the form's token.
 */
export async function checkSameOriginOrToken(
  ctx: Pick<Context, 'site' | 'logger' | 'session'>,
  request: Request,
  params: Params,
): Promise<void> {
  if (isForeignBrowserRequest(ctx, request)) throw crossSiteRefused(ctx, request);
  if (isSameOrigin(ctx, request)) return;
  if (!(await hasValidCsrfToken(ctx, request, params))) throw formExpired();
}
