import type { Context } from '../../context.js';
import { type Params, readForm } from '../../http/form.js';
import { isForeignBrowserRequest } from '../../http/origin.js';
import type { Answer } from '../../http/reply.js';
import { noStoreEmpty } from '../../http/responses.js';
import type { Handler } from '../../http/router.js';
import { parametersAfterLogin } from '../../oidc/authorization-parameters.js';
import { shownUsername } from '../../passwords/credential-limits.js';
import { attemptPasswordLogin } from '../../passwords/password-login.js';
import { crossSiteRefused, formExpired, hasValidCsrfToken, pageCsrfToken } from '../../session/csrf.js';
import { endSession, startSession } from '../../session/session-cookie.js';
import { clientDisplay } from '../../ui/display-text.js';
import { LOGIN_ERROR_TEXT, type LoginErrorCode } from '../../ui/messages.js';
import { formTargetSource } from '../../ui/page-response.js';
import { errorPage, loginPage, pageLanguage } from '../../ui/pages.js';
import { PAGE_PATHS } from '../../ui/paths.js';
import { DEFAULT_PAGE_TEXTS } from '../../ui/texts.js';
import { ENDPOINTS } from '../metadata.js';
import { updateFlight } from '../par/pushed-requests.js';
import type { AuthorizationRequest } from './request.js';
import { authorizationStep } from './response.js';

/** The one message for every failed login: unknown user and wrong password look the same. */
export const LOGIN_FAILED_MESSAGE = DEFAULT_PAGE_TEXTS.loginInvalidCredentials;

/** Options of {@link renderLoginStep}. */
export interface LoginStepOptions {
  readonly status?: number;
  /** Why the previous attempt failed: a stable code, shown in the page's language. */
  readonly error?: LoginErrorCode;
  readonly username?: string;
  readonly headers?: HeadersInit;
}

/**
 * The login page for a validated authorization request: the request travels in hidden fields and is
 * validated again on POST, so nothing is stored before the user has logged in.
 */
export function renderLoginStep(
  ctx: Context,
  request: Request,
  auth: AuthorizationRequest,
  options: LoginStepOptions = {},
): Promise<Answer> {
  const target = formTargetSource(auth.redirectUri);
  return renderLoginForm(
    ctx,
    request,
    {
      action: ctx.basePath + PAGE_PATHS.login,
      hiddenFields: auth.parameters,
      ...clientDisplay(auth.client),
      // OpenID Connect Core §3.1.2.1: login_hint prefills the username.
      ...(auth.oidc.loginHint === undefined ? {} : { username: auth.oidc.loginHint }),
      ...(target ? { formTarget: target } : {}),
      uiLocales: auth.oidc.uiLocales,
    },
    options,
  );
}

/** What a flow's login page carries: where it posts, what travels along, whom it is for. */
export interface LoginForm {
  /** Where the form posts (a path of the instance). */
  readonly action: string;
  /** The flow's state, posted back unchanged. */
  readonly hiddenFields: Readonly<Record<string, string>>;
  readonly clientName?: string;
  /** The client registered itself (RFC 7591 or a metadata document): the page says so. */
  readonly selfRegistered?: boolean;
  /** The host of a metadata-document client's `client_id`, shown beside its self-chosen name. */
  readonly clientHost?: string;
  /** The username to prefill when the flow knows one (a login hint). */
  readonly username?: string;
  /** A CSP `form-action` source the POST may end up at (the client's redirect URI). */
  readonly formTarget?: string;
  /** The request's `ui_locales` (OpenID Connect Core §3.1.2.1), preferred to `Accept-Language`. */
  readonly uiLocales?: readonly string[];
}

/**
 * The login page of a flow (the authorization request, the device verification page), with its
 * CSRF token: the one login page of the instance, whatever flow needs the user.
 */
export function renderLoginForm(
  ctx: Context,
  request: Request,
  form: LoginForm,
  options: LoginStepOptions = {},
): Promise<Answer> {
  const csrf = pageCsrfToken(ctx, request);
  const { texts } = pageLanguage(ctx, request, form.uiLocales);
  const username = options.username ?? form.username;
  const headers = new Headers(options.headers);
  if (csrf.setCookie) headers.append('Set-Cookie', csrf.setCookie);
  return loginPage(
    ctx,
    request,
    {
      action: form.action,
      csrfToken: csrf.token,
      hiddenFields: form.hiddenFields,
      ...(form.clientName === undefined ? {} : { clientName: form.clientName }),
      ...(form.selfRegistered ? { selfRegistered: true } : {}),
      ...(form.clientHost === undefined ? {} : { clientHost: form.clientHost }),
      ...(username === undefined ? {} : { username }),
      ...(options.error === undefined
        ? {}
        : { errorCode: options.error, error: texts[LOGIN_ERROR_TEXT[options.error]] as string }),
    },
    { status: options.status ?? 200, headers, formTargets: form.formTarget ? [form.formTarget] : [] },
    form.uiLocales,
  );
}

/**
 * The authorize URL (path and query) to continue a request after the user logged in, without what
 * asked for that login (`prompt=login`, `max_age`, `id_token_hint`), which would ask again forever.
 */
export function authorizeLocation(ctx: Context, auth: AuthorizationRequest): string {
  return `${ctx.basePath}${ENDPOINTS.authorization}?${new URLSearchParams(parametersAfterLogin(auth.parameters))}`;
}

/**
 * `POST {base}/login`: checks origin and CSRF token, validates the carried authorization request
 * again, then {@link completeLoginForm}, continuing at the authorize URL, which goes on with
 * consent or the code.
 */
export const loginEndpoint: Handler = async (request, ctx) => {
  if (isForeignBrowserRequest(ctx, request))
    return errorPage(ctx, crossSiteRefused(ctx, request), undefined, request);
  const params = await readForm(request, ctx.maxBodyBytes);
  return authorizationStep(
    ctx,
    params,
    async (auth) =>
      completeLoginForm(ctx, request, params, {
        render: (options) => renderLoginStep(ctx, request, auth, options),
        continueAt: authorizeLocation(ctx, auth),
        // A pushed request continues from its stored parameters: they lose what asked for this login.
        ...(auth.pushed
          ? {
              signedIn: () => updateFlight(ctx, auth.pushed!, parametersAfterLogin(auth.pushed!.parameters)),
            }
          : {}),
      }),
    request,
  );
};

/** How a flow shows its login page again, and where it continues once the user is signed in. */
export interface LoginContinuation {
  /** The flow's login page, with a status, an error and the username typed. */
  readonly render: (options: LoginStepOptions) => Answer | Promise<Answer>;
  /** The path (and query) to continue the flow at, with a GET, after a successful login. */
  readonly continueAt: string;
  /** Runs once the password verified, before the session starts (the flow's own bookkeeping). */
  readonly signedIn?: () => Promise<unknown>;
}

/**
 * A posted login form (origin already checked, `params` read), for any flow: checks the CSRF
 * token, makes the password attempt (`passwords/password-login.ts`: credential limits,
 * brute-force limit, bounded password checks), then starts a **new** session (whatever cookie came
 * in is ended, never adopted: no fixation) and returns 303 to `continueAt`. Over-long credentials
 * fail like wrong ones; a refused attempt shows the form again with 429 (rate limit) or 503 (too
 * many checks in flight) and `Retry-After`.
 */
export async function completeLoginForm(
  ctx: Context,
  request: Request,
  params: Params,
  flow: LoginContinuation,
): Promise<Answer> {
  if (!(await hasValidCsrfToken(ctx, request, params))) {
    // A stale token (e.g. another tab replaced the cookie) gets a fresh form rather than a dead end.
    return flow.render({ status: formExpired().status, error: 'form_expired' });
  }
  const username = params.get('username') ?? '';
  const password = params.get('password') ?? '';
  const shown = shownUsername(username); // what the form and the events echo: never more than the limit
  if (username === '' || password === '') {
    return flow.render({ status: 400, error: 'missing_credentials', username: shown });
  }
  const attempt = await attemptPasswordLogin(ctx, request, username, password);
  if (attempt.outcome === 'refused') {
    const rateLimited = attempt.reason === 'rate_limited';
    if (rateLimited) ctx.emit({ type: 'login.rate_limited', username: shown, via: 'login-page' });
    return flow.render({
      status: attempt.error.status,
      error: rateLimited ? 'rate_limited' : 'busy',
      username: shown,
      headers: attempt.error.headers,
    });
  }
  if (attempt.outcome === 'failed') {
    ctx.emit({ type: 'login.failed', username: shown, via: 'login-page' });
    return flow.render({ status: 400, error: 'invalid_credentials', username: shown });
  }
  const { user } = attempt;
  await flow.signedIn?.();
  await endSession(ctx, request); // the new cookie below replaces the old one in the browser
  const { setCookie } = await startSession(ctx, user.id);
  ctx.emit({ type: 'login.succeeded', userId: user.id, via: 'login-page' });
  return noStoreEmpty(303, {
    Location: flow.continueAt,
    'Set-Cookie': setCookie,
    'Referrer-Policy': 'same-origin',
  });
}
