import type { Context } from '../../context.js';
import type { Params } from '../../http/form.js';
import type { Answer } from '../../http/reply.js';
import { shownUsername } from '../../passwords/credential-limits.js';
import { attemptPasswordLogin } from '../../passwords/password-login.js';
import { formExpired, hasValidCsrfToken, pageCsrfToken } from '../../session/csrf.js';
import type { UserRecord } from '../../storage/types.js';
import { LOGIN_ERROR_TEXT, type LoginErrorCode } from '../../ui/messages.js';
import { loginPage, pageLanguage } from '../../ui/pages.js';

/** Options of {@link renderLoginForm}. */
export interface LoginStepOptions {
  readonly status?: number;
  /** Why the previous attempt failed: a stable code, shown in the page's language. */
  readonly error?: LoginErrorCode;
  readonly username?: string;
  readonly headers?: HeadersInit;
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
 * The built-in login page, with its CSRF token: the one login page of the instance, whatever flow
 * needs the user, shown as the handler of a login interaction (`oauth2/interaction/built-in-pages.ts`).
 */
export function renderLoginForm(
  ctx: Pick<Context, 'site' | 'randomBytes' | 'ui' | 'session'>,
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

/** How a flow shows its login page again, and how it goes on once the password verified. */
export interface LoginContinuation {
  /** The flow's login page, with a status, an error and the username typed. */
  readonly render: (options: LoginStepOptions) => Answer | Promise<Answer>;
  /** The answer once the password verified (the built-in login page: `finish` of its interaction). */
  readonly signedIn: (user: UserRecord) => Promise<Answer>;
}

/**
 * A posted login form (origin already checked, `params` read): checks the CSRF token, makes the
 * password attempt (`passwords/password-login.ts`: credential limits, brute-force limit, bounded
 * password checks), then hands the user to `flow.signedIn`. Over-long credentials
 * fail like wrong ones; a refused attempt shows the form again with 429 (rate limit) or 503 (too
 * many checks in flight) and `Retry-After`.
 */
export async function completeLoginForm(
  ctx: Pick<Context, 'clock' | 'emit' | 'storage' | 'users' | 'limits' | 'session'>,
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
  return flow.signedIn(attempt.user);
}
