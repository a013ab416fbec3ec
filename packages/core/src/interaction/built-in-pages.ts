import type { Context } from '../context.js';
import { ProtocolError } from '../errors.js';
import { readForm } from '../http/form.js';
import { isForeignBrowserRequest } from '../http/origin.js';
import type { Answer } from '../http/reply.js';
import { noStoreEmpty } from '../http/responses.js';
import type { Handler } from '../http/router.js';
import type { AuthorizationRequest } from '../oauth2/authorize/request.js';
import { parseScope } from '../oauth2/scope.js';
import { shownUsername } from '../passwords/credential-limits.js';
import { attemptPasswordLogin } from '../passwords/password-login.js';
import {
  checkFormPost,
  crossSiteRefused,
  formExpired,
  hasValidCsrfToken,
  pageCsrfToken,
} from '../session/csrf.js';
import { LOGIN_ERROR_TEXT, type LoginErrorCode } from '../ui/messages.js';
import { formTargetSource } from '../ui/page-response.js';
import { consentPage, errorPage, loginPage, pageLanguage } from '../ui/pages.js';
import { InteractionError } from './interaction-error.js';
import { finishInteraction, pendingInteraction, storedRequest } from './interactions-api.js';
import { INTERACTION_PATHS } from './paths.js';
import type { InteractionRecord } from './record.js';
import type { ConsentResult } from './types.js';

/*
 * The built-in login and consent pages as interaction handlers (`interactions.builtInPages`): a
 * client of the same calls a host's own pages make (`details` → the page, `finish` → the resume),
 * with the built-in renderers, CSRF protection and password attempt limits. The authorization
 * request never travels through the page: it stays in the interaction.
 */

/** The interaction of a request (its `interaction` query parameter, this browser), and its request. */
async function interactionOf(
  ctx: Context,
  request: Request,
  url: URL,
): Promise<{ reference: string; record: InteractionRecord; auth: AuthorizationRequest }> {
  const reference = url.searchParams.get('interaction') ?? '';
  const { record } = await pendingInteraction(ctx, reference, request);
  return { reference, record, auth: await storedRequest(ctx, record) };
}

/** The page an interaction refusal shows (400, or 403 for another browser). */
function refusedPage(ctx: Context, request: Request, error: InteractionError): Promise<Answer> {
  const code = error.status === 403 ? 'forbidden' : 'invalid_request';
  return errorPage(ctx, new ProtocolError(code, error.message), undefined, request);
}

/** Where the pages' form posts: back to this page, same reference. */
function actionOf(ctx: Context, reference: string): string {
  return `${ctx.basePath}${INTERACTION_PATHS.builtIn}?${new URLSearchParams({ interaction: reference })}`;
}

async function renderStep(
  ctx: Context,
  request: Request,
  reference: string,
  record: InteractionRecord,
  auth: AuthorizationRequest,
  failure?: { code: LoginErrorCode; status: number; username?: string; headers?: HeadersInit },
): Promise<Answer> {
  const csrf = pageCsrfToken(ctx, request);
  const headers = new Headers(failure?.headers);
  if (csrf.setCookie) headers.append('Set-Cookie', csrf.setCookie);
  // The form's POST ends, through the resume, at the client: CSP form-action names its origin.
  const target = formTargetSource(auth.redirectUri);
  const options = { status: failure?.status ?? 200, headers, formTargets: target ? [target] : [] };
  const common = { action: actionOf(ctx, reference), csrfToken: csrf.token, hiddenFields: {} };
  if (record.step === 'consent') {
    const scopes = parseScope(auth.scope);
    return consentPage(
      ctx,
      request,
      {
        ...common,
        clientName: auth.client.name ?? auth.client.id,
        redirectHost: new URL(auth.redirectUri).host,
        scopes,
        scopeDescriptions: Object.fromEntries(
          scopes
            .filter((scope) => Object.hasOwn(ctx.ui.scopeDescriptions, scope))
            .map((scope) => [scope, ctx.ui.scopeDescriptions[scope]!]),
        ),
        ...(auth.resources && auth.resources.length > 0 ? { resources: auth.resources } : {}),
      },
      options,
      auth.oidc.uiLocales,
    );
  }
  const { texts } = pageLanguage(ctx, request, auth.oidc.uiLocales);
  const username = failure?.username ?? auth.oidc.loginHint;
  return loginPage(
    ctx,
    request,
    {
      ...common,
      clientName: auth.client.name ?? auth.client.id,
      ...(username === undefined ? {} : { username }),
      ...(failure === undefined
        ? {}
        : { errorCode: failure.code, error: texts[LOGIN_ERROR_TEXT[failure.code]] as string }),
    },
    options,
    auth.oidc.uiLocales,
  );
}

/** `GET {base}/interaction?interaction=<reference>`: the built-in login or consent page of an interaction. */
export const builtInPageEndpoint: Handler = async (request, ctx, url) => {
  try {
    const { reference, record, auth } = await interactionOf(ctx, request, url);
    return await renderStep(ctx, request, reference, record, auth);
  } catch (error) {
    if (error instanceof InteractionError) return refusedPage(ctx, request, error);
    throw error;
  }
};

/**
 * `POST {base}/interaction?interaction=<reference>`: the built-in page's form. Origin and CSRF
 * checked; a login makes the password attempt (credential limits, brute-force limit, bounded checks)
 * and finishes with `amr: ["pwd"]`; a consent finishes with "allow" or "deny". Then 303 to the resume.
 */
export const builtInFormEndpoint: Handler = async (request, ctx, url) => {
  if (isForeignBrowserRequest(ctx, request))
    return errorPage(ctx, crossSiteRefused(ctx, request), undefined, request);
  const params = await readForm(request, ctx.maxBodyBytes);
  try {
    const { reference, record, auth } = await interactionOf(ctx, request, url);
    if (record.step === 'consent') {
      await checkFormPost(ctx, request, params);
      const decision = params.get('decision');
      const consent: ConsentResult = decision === 'allow' ? {} : { denied: true };
      const { location } = await finishInteraction(ctx, request, { consent }, reference);
      return noStoreEmpty(303, { Location: location, 'Referrer-Policy': 'same-origin' });
    }
    if (!(await hasValidCsrfToken(ctx, request, params)))
      return renderStep(ctx, request, reference, record, auth, {
        code: 'form_expired',
        status: formExpired().status,
      });
    const username = params.get('username') ?? '';
    const password = params.get('password') ?? '';
    const shown = shownUsername(username);
    if (username === '' || password === '')
      return renderStep(ctx, request, reference, record, auth, {
        code: 'missing_credentials',
        status: 400,
        username: shown,
      });
    const attempt = await attemptPasswordLogin(ctx, request, username, password);
    if (attempt.outcome === 'refused') {
      if (attempt.reason === 'rate_limited')
        ctx.emit({ type: 'login.rate_limited', username: shown, via: 'login-page' });
      return renderStep(ctx, request, reference, record, auth, {
        code: attempt.reason === 'rate_limited' ? 'rate_limited' : 'busy',
        status: attempt.error.status,
        username: shown,
        headers: attempt.error.headers,
      });
    }
    if (attempt.outcome === 'failed') {
      ctx.emit({ type: 'login.failed', username: shown, via: 'login-page' });
      return renderStep(ctx, request, reference, record, auth, {
        code: 'invalid_credentials',
        status: 400,
        username: shown,
      });
    }
    const { location } = await finishInteraction(
      ctx,
      request,
      { login: { sub: attempt.user.id, amr: ['pwd'] } },
      reference,
    );
    return noStoreEmpty(303, { Location: location, 'Referrer-Policy': 'same-origin' });
  } catch (error) {
    if (error instanceof InteractionError) return refusedPage(ctx, request, error);
    if (error instanceof ProtocolError && error.code === 'forbidden')
      return errorPage(ctx, error, undefined, request);
    throw error;
  }
};
