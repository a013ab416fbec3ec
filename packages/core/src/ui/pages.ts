import type { Context } from '../context.js';
import type { ProtocolError } from '../errors.js';
import type { Answer } from '../http/reply.js';
import { defaultConsentPage } from './consent-page.js';
import { defaultEndSessionPage } from './end-session-page.js';
import { defaultErrorPage } from './error-page.js';
import { defaultLoginPage } from './login-page.js';
import { defaultLogoutPage } from './logout-page.js';
import { type HtmlPageOptions, htmlPage } from './page-response.js';
import type { ConsentPageModel, EndSessionPageModel, LoginPageModel, LogoutPageModel } from './types.js';

/*
 * The one place that picks the host's renderer (options.ui) or the built-in one and wraps the
 * document in the page security headers.
 */

/** The login page response. */
export function loginPage(ctx: Context, model: LoginPageModel, options?: HtmlPageOptions): Answer {
  return htmlPage((ctx.ui.renderLogin ?? defaultLoginPage)(model), options);
}

/** The consent page response. */
export function consentPage(ctx: Context, model: ConsentPageModel, options?: HtmlPageOptions): Answer {
  return htmlPage((ctx.ui.renderConsent ?? defaultConsentPage)(model), options);
}

/** The logout page response. */
export function logoutPage(ctx: Context, model: LogoutPageModel, options?: HtmlPageOptions): Answer {
  return htmlPage((ctx.ui.renderLogout ?? defaultLogoutPage)(model), options);
}

/** The end-session (RP-initiated logout) page response. */
export function endSessionPage(ctx: Context, model: EndSessionPageModel, options?: HtmlPageOptions): Answer {
  return htmlPage((ctx.ui.renderEndSession ?? defaultEndSessionPage)(model), options);
}

/** An error as an HTML page, with the error's status and headers (e.g. `Retry-After`). */
export function errorPage(ctx: Context, error: ProtocolError, headers?: HeadersInit): Answer {
  const merged = new Headers(error.headers);
  for (const [name, value] of new Headers(headers)) merged.append(name, value);
  const html = (ctx.ui.renderError ?? defaultErrorPage)({
    error: error.code,
    description: error.description,
    status: error.status,
  });
  return htmlPage(html, { status: error.status, headers: merged });
}

/** Whether the caller is a browser navigation that wants HTML rather than JSON. */
export function wantsHtml(request: Request): boolean {
  const accept = request.headers.get('accept') ?? '';
  return /\btext\/html\b/i.test(accept) && !/^\s*application\/json/i.test(accept);
}

/**
 * An error as an HTML page for browser navigations, as RFC-shaped JSON otherwise. (Not to be
 * confused with `errorAnswer` of errors.ts, which turns anything thrown into the JSON answer.)
 */
export function errorPageOrJson(
  ctx: Context,
  request: Request,
  error: ProtocolError,
  headers?: HeadersInit,
): Answer {
  if (wantsHtml(request)) return errorPage(ctx, error, headers);
  const reply = error.toReply();
  for (const [name, value] of new Headers(headers)) reply.headers.append(name, value);
  return reply;
}
