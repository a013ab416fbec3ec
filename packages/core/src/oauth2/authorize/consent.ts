import type { Context } from '../../context.js';
import { invalidRequest, oauthError, ProtocolError } from '../../errors.js';
import { readForm } from '../../http/form.js';
import type { Answer } from '../../http/reply.js';
import type { Handler } from '../../http/router.js';
import { startInteraction } from '../../interaction/start.js';
import { parametersAfterLogin } from '../../oidc/authorization-parameters.js';
import { verifyIdTokenHint } from '../../oidc/id-token.js';
import { nextInteraction } from '../../oidc/interaction.js';
import { checkFormPost, pageCsrfToken } from '../../session/csrf.js';
import { sessionUser } from '../../session/session-user.js';
import { clientDisplay } from '../../ui/display-text.js';
import { formTargetSource } from '../../ui/page-response.js';
import { consentPage, errorPage } from '../../ui/pages.js';
import { PAGE_PATHS } from '../../ui/paths.js';
import { parseScope } from '../scope.js';
import { type Authentication, sessionAuthentication } from './authentication.js';
import { issueAuthorizationCode } from './code.js';
import { hasConsent, rememberConsent } from './consent-record.js';
import { renderLoginStep } from './login.js';
import type { AuthorizationRequest } from './request.js';
import { authorizationErrorRedirect, authorizationStep } from './response.js';

/** Options of {@link continueRequest}. */
export interface ContinueOptions {
  /** The user has just consented to this request (an interaction's result): ask no consent again. */
  readonly consented?: boolean;
}

/**
 * Continues a validated authorization request with who is signed in (or nobody), as
 * {@link nextInteraction} decides (OpenID Connect Core §3.1.2.3–§3.1.2.4): sign-in (nobody,
 * `prompt=login`, an authentication older than `max_age`, another user than the `id_token_hint`
 * names), consent (`prompt=consent`, or a third-party client without a remembered consent covering
 * the scope), or the code. Sign-in and consent are the host's page when `interactions.url` is set
 * (an interaction), else the built-in pages. With `prompt=none`, a needed page becomes a
 * `login_required` / `consent_required` redirect: the host is never asked.
 */
export async function continueRequest(
  ctx: Context,
  request: Request,
  auth: AuthorizationRequest,
  current: Authentication | null,
  options: ContinueOptions = {},
): Promise<Answer> {
  const hintSubject =
    auth.oidc.idTokenHint === undefined ? undefined : await hintSubjectOf(ctx, auth.oidc.idTokenHint);
  const consented = options.consented === true;
  const consentNeeded =
    current !== null &&
    !consented &&
    !auth.client.firstParty &&
    !(await hasConsent(ctx, current.userId, auth));
  const prompt = consented ? new Set([...auth.oidc.prompt].filter((p) => p !== 'consent')) : auth.oidc.prompt;
  const step = nextInteraction({
    oidc: { ...auth.oidc, prompt },
    session: current && {
      userId: current.userId,
      authTime: current.authTime,
      ...(current.acr === undefined ? {} : { acr: current.acr }),
    },
    // The host's sign-in can reach the class acr_values asks for; the built-in page cannot.
    enforceAcr: ctx.interactions.url !== undefined,
    ...(hintSubject === undefined ? {} : { hintSubject }),
    consentNeeded,
    now: ctx.now(),
  });
  const hostPage = ctx.interactions.url;
  if (step === 'login' || current === null) {
    return hostPage
      ? startInteraction(ctx, request, auth, 'login', hintSubject, hostPage)
      : renderLoginStep(ctx, request, auth);
  }
  if (step === 'consent') {
    return hostPage
      ? startInteraction(ctx, request, auth, 'consent', current.userId, hostPage)
      : renderConsentStep(ctx, request, auth, current);
  }
  return issueAuthorizationCode(ctx, auth, current);
}

/**
 * The request as it continues right after a sign-in: without `prompt=login`, `max_age` and
 * `id_token_hint`, which have done their work (see `parametersAfterLogin`), nor `acr_values` as a
 * requirement: the host's sign-in reached what it could, and the ID token's `acr` says what.
 */
export function afterLogin(auth: AuthorizationRequest): AuthorizationRequest {
  const { maxAge: _maxAge, idTokenHint: _hint, ...oidc } = auth.oidc;
  return {
    ...auth,
    oidc: { ...oidc, acrValues: [], prompt: new Set([...auth.oidc.prompt].filter((p) => p !== 'login')) },
    parameters: parametersAfterLogin(auth.parameters),
  };
}

/** The user an `id_token_hint` names; `invalid_request` when it is not an ID token of this issuer. */
async function hintSubjectOf(ctx: Context, idTokenHint: string): Promise<string> {
  const hint = await verifyIdTokenHint(ctx, idTokenHint);
  if (!hint) throw invalidRequest('The id_token_hint is not an ID token of this issuer.');
  return hint.sub;
}

/** The consent page for a validated request and a signed-in user. */
function renderConsentStep(
  ctx: Context,
  request: Request,
  auth: AuthorizationRequest,
  current: Authentication,
): Promise<Answer> {
  const csrf = pageCsrfToken(ctx, request);
  const target = formTargetSource(auth.redirectUri);
  const scopes = parseScope(auth.scope);
  return consentPage(
    ctx,
    request,
    {
      action: ctx.basePath + PAGE_PATHS.consent,
      csrfToken: csrf.token,
      hiddenFields: auth.parameters,
      ...clientDisplay(auth.client),
      redirectHost: new URL(auth.redirectUri).host,
      scopes,
      scopeDescriptions: Object.fromEntries(
        scopes
          .filter((scope) => Object.hasOwn(ctx.ui.scopeDescriptions, scope))
          .map((scope) => [scope, ctx.ui.scopeDescriptions[scope]!]),
      ),
      ...(auth.resources && auth.resources.length > 0 ? { resources: auth.resources } : {}),
      ...(current.username === undefined ? {} : { username: current.username }),
    },
    { headers: csrf.setCookie ? { 'Set-Cookie': csrf.setCookie } : {}, formTargets: target ? [target] : [] },
    auth.oidc.uiLocales,
  );
}

/**
 * `POST {base}/consent`: checks origin and CSRF token, validates the carried request again, and
 * requires the session still to be active. "Deny" → `access_denied` to the client; "Allow" →
 * the consent is remembered (merged with earlier scopes of this user and client) and the code issued.
 */
export const consentEndpoint: Handler = async (request, ctx) => {
  const params = await readForm(request, ctx.maxBodyBytes);
  try {
    await checkFormPost(ctx, request, params);
  } catch (error) {
    if (error instanceof ProtocolError) return errorPage(ctx, error, undefined, request);
    throw error;
  }
  return authorizationStep(
    ctx,
    params,
    async (auth) => {
      const current = await sessionUser(ctx, request);
      if (!current) return renderLoginStep(ctx, request, auth);
      const decision = params.get('decision');
      // The user's own choice, on a page naming where it leads: redirected for every client, the
      // self-registered ones too (no open redirect without the user's doing, RFC 9700 §4.11.2).
      if (decision === 'deny') {
        ctx.emit({ type: 'consent.denied', userId: current.user.id, clientId: auth.client.id });
        return authorizationErrorRedirect(
          ctx,
          auth,
          oauthError('access_denied', 'The user denied the request.'),
        );
      }
      if (decision !== 'allow') throw invalidRequest('The consent decision must be "allow" or "deny".');
      const scope = await rememberConsent(ctx, current.user.id, auth.client.id, auth.scope, auth.resources);
      ctx.emit({ type: 'consent.granted', userId: current.user.id, clientId: auth.client.id, scope });
      return issueAuthorizationCode(ctx, auth, sessionAuthentication(current));
    },
    request,
  );
};
