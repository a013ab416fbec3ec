import type { Context } from '../../context.js';
import { readForm } from '../../http/form.js';
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
import { formTargetSource } from '../../ui/page-response.js';
import { errorPage, loginPage } from '../../ui/pages.js';
import { PAGE_PATHS } from '../../ui/paths.js';
import { ENDPOINTS } from '../metadata.js';
import { updateFlight } from '../par/pushed-requests.js';
import type { AuthorizationRequest } from './request.js';
import { authorizationStep } from './response.js';

/** The one message for every failed login: unknown user and wrong password look the same. */
export const LOGIN_FAILED_MESSAGE = 'The username or password is incorrect.';

/** Options of {@link renderLoginStep}. */
interface LoginStepOptions {
  readonly status?: number;
  readonly error?: string;
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
): Answer {
  const csrf = pageCsrfToken(ctx, request);
  const username = options.username ?? auth.oidc.loginHint;
  const headers = new Headers(options.headers);
  if (csrf.setCookie) headers.append('Set-Cookie', csrf.setCookie);
  const target = formTargetSource(auth.redirectUri);
  return loginPage(
    ctx,
    {
      action: ctx.basePath + PAGE_PATHS.login,
      csrfToken: csrf.token,
      hiddenFields: auth.parameters,
      ...clientDisplay(auth.client),
      // OpenID Connect Core §3.1.2.1: login_hint prefills the username.
      ...(username === undefined ? {} : { username }),
      ...(options.error === undefined ? {} : { error: options.error }),
    },
    { status: options.status ?? 200, headers, formTargets: target ? [target] : [] },
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
 * again, makes the password attempt (`passwords/password-login.ts`: credential limits, brute-force
 * limit, bounded password checks), then starts a **new** session (whatever cookie came in is
 * ended, never adopted: no fixation) and returns 303 to the authorize URL, which continues with
 * consent or the code. Over-long credentials fail like wrong ones; a refused attempt shows the form
 * again with 429 (rate limit) or 503 (too many checks in flight) and `Retry-After`.
 */
export const loginEndpoint: Handler = async (request, ctx) => {
  if (isForeignBrowserRequest(ctx, request)) return errorPage(ctx, crossSiteRefused(ctx, request));
  const params = await readForm(request, ctx.maxBodyBytes);
  return authorizationStep(
    ctx,
    params,
    async (auth) => {
      if (!(await hasValidCsrfToken(ctx, request, params))) {
        // A stale token (e.g. another tab replaced the cookie) gets a fresh form rather than a dead end.
        const expired = formExpired();
        return renderLoginStep(ctx, request, auth, { status: expired.status, error: expired.description });
      }
      const username = params.get('username') ?? '';
      const password = params.get('password') ?? '';
      const shown = shownUsername(username); // what the form and the events echo: never more than the limit
      if (username === '' || password === '') {
        return renderLoginStep(ctx, request, auth, {
          status: 400,
          error: 'Enter your username and password.',
          username: shown,
        });
      }
      const attempt = await attemptPasswordLogin(ctx, request, username, password);
      if (attempt.outcome === 'refused') {
        const rateLimited = attempt.reason === 'rate_limited';
        if (rateLimited) ctx.emit({ type: 'login.rate_limited', username: shown, via: 'login-page' });
        return renderLoginStep(ctx, request, auth, {
          status: attempt.error.status,
          error: rateLimited
            ? 'Too many failed attempts. Wait a while, then try again.'
            : 'The server is busy. Try again in a moment.',
          username: shown,
          headers: attempt.error.headers,
        });
      }
      if (attempt.outcome === 'failed') {
        ctx.emit({ type: 'login.failed', username: shown, via: 'login-page' });
        return renderLoginStep(ctx, request, auth, {
          status: 400,
          error: LOGIN_FAILED_MESSAGE,
          username: shown,
        });
      }
      const { user } = attempt;
      // A pushed request continues from its stored parameters: they lose what asked for this login.
      if (auth.pushed) await updateFlight(ctx, auth.pushed, parametersAfterLogin(auth.pushed.parameters));
      await endSession(ctx, request); // the new cookie below replaces the old one in the browser
      const { setCookie } = await startSession(ctx, user.id);
      ctx.emit({ type: 'login.succeeded', userId: user.id, via: 'login-page' });
      return noStoreEmpty(303, {
        Location: authorizeLocation(ctx, auth),
        'Set-Cookie': setCookie,
        'Referrer-Policy': 'same-origin',
      });
    },
    request,
  );
};
