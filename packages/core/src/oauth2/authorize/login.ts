import type { Context } from '../../context.js';
import { ProtocolError } from '../../errors.js';
import { readForm } from '../../http/form.js';
import { isForeignBrowserRequest } from '../../http/origin.js';
import type { Answer } from '../../http/reply.js';
import type { Handler } from '../../http/router.js';
import { attemptLimiter } from '../../passwords/attempt-limiter.js';
import { crossSiteRefused, formExpired, hasValidCsrfToken, pageCsrfToken } from '../../session/csrf.js';
import { endSession, startSession } from '../../session/session-cookie.js';
import { formTargetSource } from '../../ui/page-response.js';
import { errorPage, loginPage } from '../../ui/pages.js';
import { PAGE_PATHS } from '../../ui/paths.js';
import { ENDPOINTS } from '../metadata.js';
import type { AuthorizationRequest } from './request.js';
import { authorizationStep } from './response.js';

/** The one message for every failed login: unknown user and wrong password look the same. */
export const LOGIN_FAILED_MESSAGE = 'The username or password is incorrect.';
const MAX_USERNAME = 256;
const MAX_PASSWORD = 1024;

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
  const headers = new Headers(options.headers);
  if (csrf.setCookie) headers.append('Set-Cookie', csrf.setCookie);
  const target = formTargetSource(auth.redirectUri);
  return loginPage(
    ctx,
    {
      action: ctx.basePath + PAGE_PATHS.login,
      csrfToken: csrf.token,
      hiddenFields: auth.parameters,
      clientName: auth.client.name ?? auth.client.id,
      ...(options.username === undefined ? {} : { username: options.username }),
      ...(options.error === undefined ? {} : { error: options.error }),
    },
    { status: options.status ?? 200, headers, formTargets: target ? [target] : [] },
  );
}

/** The authorize URL (path and query) of a request, to continue it after a step. */
export function authorizeLocation(ctx: Context, auth: AuthorizationRequest): string {
  return `${ctx.basePath}${ENDPOINTS.authorization}?${new URLSearchParams(auth.parameters)}`;
}

/**
 * `POST {base}/login`: checks origin and CSRF token, validates the carried authorization request
 * again, applies the brute-force limit, verifies the password, then starts a **new** session
 * (whatever cookie came in is ended, never adopted: no fixation) and returns 303 to the authorize
 * URL, which continues with consent or the code.
 */
export const loginEndpoint: Handler = async (request, ctx) => {
  if (isForeignBrowserRequest(ctx, request)) return errorPage(ctx, crossSiteRefused());
  const params = await readForm(request, ctx.maxBodyBytes);
  return authorizationStep(ctx, params, async (auth) => {
    if (!(await hasValidCsrfToken(ctx, request, params))) {
      // A stale token (e.g. another tab replaced the cookie) gets a fresh form rather than a dead end.
      return renderLoginStep(ctx, request, auth, { status: 403, error: formExpired().description });
    }
    const username = params.get('username') ?? '';
    const password = params.get('password') ?? '';
    if (username === '' || password === '') {
      return renderLoginStep(ctx, request, auth, {
        status: 400,
        error: 'Enter your username and password.',
        username,
      });
    }
    const limiter = attemptLimiter(ctx, request, username);
    try {
      await limiter.reserve();
    } catch (error) {
      if (!(error instanceof ProtocolError) || error.status !== 429) throw error;
      ctx.emit({ type: 'login.rate_limited', username, via: 'login-page' });
      return renderLoginStep(ctx, request, auth, {
        status: 429,
        error: 'Too many failed attempts. Wait a while, then try again.',
        username,
        headers: error.headers,
      });
    }
    const user =
      username.length > MAX_USERNAME || password.length > MAX_PASSWORD
        ? null
        : await ctx.users.verifyPassword(username, password);
    if (!user) {
      ctx.emit({ type: 'login.failed', username, via: 'login-page' });
      return renderLoginStep(ctx, request, auth, { status: 400, error: LOGIN_FAILED_MESSAGE, username });
    }
    await limiter.succeeded();
    await endSession(ctx, request); // the new cookie below replaces the old one in the browser
    const { setCookie } = await startSession(ctx, user.id);
    ctx.emit({ type: 'login.succeeded', userId: user.id, via: 'login-page' });
    return new Response(null, {
      status: 303,
      headers: {
        Location: authorizeLocation(ctx, auth),
        'Set-Cookie': setCookie,
        'Cache-Control': 'no-store',
        'Referrer-Policy': 'same-origin',
      },
    });
  });
};
