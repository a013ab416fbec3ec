import type { Context } from '../context.js';
import type { ProtocolError } from '../errors.js';
import type { Answer } from '../http/reply.js';
import { defaultConsentPage } from './consent-page.js';
import { displayText } from './display-text.js';
import { defaultEndSessionPage } from './end-session-page.js';
import { defaultErrorPage } from './error-page.js';
import { errorExplanation } from './error-texts.js';
import { defaultLoginPage } from './login-page.js';
import { defaultLogoutPage } from './logout-page.js';
import { type HtmlPageOptions, htmlPage } from './page-response.js';
import type { ConsentPageModel, EndSessionPageModel, LoginPageModel, LogoutPageModel } from './types.js';

/*
 * The one place that picks the host's renderer (options.ui) or the built-in one, hands it the
 * instance's wording (`texts`) and wraps the document in the page security headers. Each page is
 * picked on its own, so a host replacing one page keeps the built-in others, with the same wording.
 */

/** The page options with the logo's origin allowed as an image source (CSP `img-src`). */
export function withImages(ctx: Context, options: HtmlPageOptions = {}): HtmlPageOptions {
  return ctx.ui.logoSource === undefined ? options : { ...options, imageSources: [ctx.ui.logoSource] };
}

/** `model` with every name it shows passed through {@link displayText} (bidi controls removed). */
function shownNames<M extends NamedModel>(model: M): M {
  const shown: NamedModel = {};
  for (const name of ['clientName', 'clientHost', 'redirectHost', 'username'] as const) {
    const value = model[name];
    if (typeof value === 'string') shown[name] = displayText(value);
  }
  return { ...model, ...shown };
}

interface NamedModel {
  clientName?: string;
  clientHost?: string;
  redirectHost?: string;
  username?: string;
}

/** The login page response. */
export function loginPage(ctx: Context, model: LoginPageModel, options?: HtmlPageOptions): Answer {
  return htmlPage(
    (ctx.ui.renderLogin ?? defaultLoginPage)({ ...shownNames(model), texts: ctx.ui.texts }),
    withImages(ctx, options),
  );
}

/** The consent page response. */
export function consentPage(ctx: Context, model: ConsentPageModel, options?: HtmlPageOptions): Answer {
  return htmlPage(
    (ctx.ui.renderConsent ?? defaultConsentPage)({ ...shownNames(model), texts: ctx.ui.texts }),
    withImages(ctx, options),
  );
}

/** The logout page response. */
export function logoutPage(ctx: Context, model: LogoutPageModel, options?: HtmlPageOptions): Answer {
  return htmlPage(
    (ctx.ui.renderLogout ?? defaultLogoutPage)({ ...shownNames(model), texts: ctx.ui.texts }),
    withImages(ctx, options),
  );
}

/** The end-session (RP-initiated logout) page response. */
export function endSessionPage(ctx: Context, model: EndSessionPageModel, options?: HtmlPageOptions): Answer {
  return htmlPage(
    (ctx.ui.renderEndSession ?? defaultEndSessionPage)({ ...shownNames(model), texts: ctx.ui.texts }),
    withImages(ctx, options),
  );
}

/**
 * An error as an HTML page, with the error's status and headers (e.g. `Retry-After`): the code, its
 * plain-words explanation and the request's description (for 4xx only).
 */
export function errorPage(ctx: Context, error: ProtocolError, headers?: HeadersInit): Answer {
  const merged = new Headers(error.headers);
  for (const [name, value] of new Headers(headers)) merged.append(name, value);
  const explanation = errorExplanation(error.code);
  const html = (ctx.ui.renderError ?? defaultErrorPage)({
    error: error.code,
    // A 5xx description may name what failed inside (a store, a key): the page says only what it means.
    description: error.status >= 500 ? explanation : error.description,
    explanation,
    status: error.status,
    texts: ctx.ui.texts,
  });
  return htmlPage(html, withImages(ctx, { status: error.status, headers: merged }));
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
