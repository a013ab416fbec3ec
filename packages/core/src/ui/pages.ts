import type { Context } from '../context.js';
import type { ProtocolError } from '../errors.js';
import { markRefusal } from '../http/refusal.js';
import { type Answer, fieldsOf } from '../http/reply.js';
import { defaultConsentPage } from './consent-page.js';
import { displayText } from './display-text.js';
import { defaultEndSessionPage } from './end-session-page.js';
import { defaultErrorPage } from './error-page.js';
import { errorExplanation } from './error-texts.js';
import { resolveLocale } from './locale.js';
import { defaultLoginPage } from './login-page.js';
import { defaultLogoutPage } from './logout-page.js';
import { DEFAULT_LOCALE } from './messages.js';
import { type HtmlPageOptions, htmlPage } from './page-response.js';
import type {
  ConsentPageModel,
  EndSessionPageModel,
  LoginPageModel,
  LogoutPageModel,
  PageContext,
  PageTexts,
} from './types.js';

/*
 * The one place that picks the host's renderer (options.ui) or the built-in one, hands it the
 * wording of the page's language (`texts`) and the request (a renderer may be async), and wraps the
 * document in the page security headers. Each page is picked on its own, so a host replacing one
 * page keeps the built-in others, with the same wording.
 */

/** The page options with the logo's origin and the host's sources allowed (CSP). */
export function withSources(ctx: Pick<Context, 'ui'>, options: HtmlPageOptions = {}): HtmlPageOptions {
  return {
    ...options,
    ...(ctx.ui.logoSource === undefined ? {} : { imageSources: [ctx.ui.logoSource] }),
    sources: ctx.ui.sources,
  };
}

/** A page's language and its wording, for a request (and the authorization request's `ui_locales`). */
export function pageLanguage(
  ctx: Pick<Context, 'ui'>,
  request: Request,
  uiLocales: readonly string[] = [],
): { context: PageContext; texts: PageTexts } {
  const locale = resolveLocale(
    ctx.ui.locales,
    DEFAULT_LOCALE,
    uiLocales,
    request.headers.get('accept-language'),
  );
  return { context: { request, locale }, texts: ctx.ui.catalog.get(locale) ?? ctx.ui.texts };
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

/** The login page response, in the language of `uiLocales` or the browser's. */
export async function loginPage(
  ctx: Pick<Context, 'ui'>,
  request: Request,
  model: LoginPageModel,
  options?: HtmlPageOptions,
  uiLocales?: readonly string[],
): Promise<Answer> {
  const { context, texts } = pageLanguage(ctx, request, uiLocales);
  const html = await (ctx.ui.renderLogin ?? defaultLoginPage)({ ...shownNames(model), texts }, context);
  return htmlPage(html, withSources(ctx, options));
}

/** The consent page response. */
export async function consentPage(
  ctx: Pick<Context, 'ui'>,
  request: Request,
  model: ConsentPageModel,
  options?: HtmlPageOptions,
  uiLocales?: readonly string[],
): Promise<Answer> {
  const { context, texts } = pageLanguage(ctx, request, uiLocales);
  const html = await (ctx.ui.renderConsent ?? defaultConsentPage)({ ...shownNames(model), texts }, context);
  return htmlPage(html, withSources(ctx, options));
}

/** The logout page response. */
export async function logoutPage(
  ctx: Pick<Context, 'ui'>,
  request: Request,
  model: LogoutPageModel,
  options?: HtmlPageOptions,
): Promise<Answer> {
  const { context, texts } = pageLanguage(ctx, request);
  const html = await (ctx.ui.renderLogout ?? defaultLogoutPage)({ ...shownNames(model), texts }, context);
  return htmlPage(html, withSources(ctx, options));
}

/** The end-session (RP-initiated logout) page response. */
export async function endSessionPage(
  ctx: Pick<Context, 'ui'>,
  request: Request,
  model: EndSessionPageModel,
  options?: HtmlPageOptions,
): Promise<Answer> {
  const { context, texts } = pageLanguage(ctx, request);
  const html = await (ctx.ui.renderEndSession ?? defaultEndSessionPage)(
    { ...shownNames(model), texts },
    context,
  );
  return htmlPage(html, withSources(ctx, options));
}

/**
 * An error as an HTML page, with the error's status and headers (e.g. `Retry-After`): the code, its
 * plain-words explanation and the request's description (for 4xx only).
 */
export async function errorPage(
  ctx: Pick<Context, 'issuer' | 'ui'>,
  error: ProtocolError,
  headers?: HeadersInit,
  request?: Request,
): Promise<Answer> {
  const merged = new Headers(error.headers);
  for (const [name, value] of new Headers(headers)) merged.append(name, value);
  const explanation = errorExplanation(error.code);
  // Without the browser's request (an authorization step), the page is in the default language.
  const { context, texts } = pageLanguage(ctx, request ?? new Request(ctx.issuer));
  const html = await (ctx.ui.renderError ?? defaultErrorPage)(
    {
      error: error.code,
      // A 5xx description may name what failed inside (a store, a key): the page says only what it means.
      description: error.status >= 500 ? explanation : error.description,
      explanation,
      status: error.status,
      texts,
    },
    context,
  );
  return markRefusal(htmlPage(html, withSources(ctx, { status: error.status, headers: merged })), error.code);
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
export async function errorPageOrJson(
  ctx: Pick<Context, 'issuer' | 'ui'>,
  request: Request,
  error: ProtocolError,
  headers?: HeadersInit,
): Promise<Answer> {
  if (wantsHtml(request)) return errorPage(ctx, error, headers, request);
  const reply = error.toReply();
  for (const [name, value] of new Headers(headers)) fieldsOf(reply).append(name, value);
  return reply;
}
