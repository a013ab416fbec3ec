import type { Context } from '../../context.js';
import { invalidRequest, ProtocolError } from '../../errors.js';
import { readForm } from '../../http/form.js';
import type { Answer } from '../../http/reply.js';
import type { Handler } from '../../http/router.js';
import { checkFormPost, pageCsrfToken } from '../../session/csrf.js';
import { type SessionUser, sessionUser } from '../../session/session-user.js';
import { formTargetSource } from '../../ui/page-response.js';
import { consentPage, errorPage } from '../../ui/pages.js';
import { PAGE_PATHS } from '../../ui/paths.js';
import { isScopeSubset, parseScope } from '../scope.js';
import { issueAuthorizationCode } from './code.js';
import { renderLoginStep } from './login.js';
import type { AuthorizationRequest } from './request.js';
import { authorizationStep } from './response.js';

/** How long a remembered consent lasts: one year, after which the user is asked again. */
const CONSENT_TTL_MS = 365 * 86_400 * 1000;

/**
 * Completes an authorization request for a logged-in user: first-party clients and requests whose
 * scope the user already allowed this client get their code at once; others get the consent page.
 */
export async function continueAsUser(
  ctx: Context,
  request: Request,
  auth: AuthorizationRequest,
  current: SessionUser,
): Promise<Answer> {
  if (auth.client.firstParty || (await hasConsent(ctx, current.user.id, auth))) {
    return issueAuthorizationCode(ctx, auth, current.user.id, current.session.record.createdAt);
  }
  return renderConsentStep(ctx, request, auth, current);
}

async function hasConsent(ctx: Context, userId: string, auth: AuthorizationRequest): Promise<boolean> {
  const consent = await ctx.storage.consents.findConsent(userId, auth.client.id, ctx.now());
  return consent !== null && isScopeSubset(auth.scope, consent.scope);
}

/** The consent page for a validated request and a logged-in user. */
function renderConsentStep(
  ctx: Context,
  request: Request,
  auth: AuthorizationRequest,
  current: SessionUser,
): Answer {
  const csrf = pageCsrfToken(ctx, request);
  const target = formTargetSource(auth.redirectUri);
  return consentPage(
    ctx,
    {
      action: ctx.basePath + PAGE_PATHS.consent,
      csrfToken: csrf.token,
      hiddenFields: auth.parameters,
      clientName: auth.client.name ?? auth.client.id,
      scopes: parseScope(auth.scope),
      ...(current.user.username === undefined ? {} : { username: current.user.username }),
    },
    { headers: csrf.setCookie ? { 'Set-Cookie': csrf.setCookie } : {}, formTargets: target ? [target] : [] },
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
    if (error instanceof ProtocolError) return errorPage(ctx, error);
    throw error;
  }
  return authorizationStep(ctx, params, async (auth) => {
    const current = await sessionUser(ctx, request);
    if (!current) return renderLoginStep(ctx, request, auth);
    const decision = params.get('decision');
    if (decision === 'deny') throw new ProtocolError('access_denied', 'The user denied the request.');
    if (decision !== 'allow') throw invalidRequest('The consent decision must be "allow" or "deny".');
    const now = ctx.now();
    const previous = await ctx.storage.consents.findConsent(current.user.id, auth.client.id, now);
    const scope = [...new Set([...parseScope(previous?.scope ?? ''), ...parseScope(auth.scope)])].join(' ');
    await ctx.storage.consents.saveConsent({
      userId: current.user.id,
      clientId: auth.client.id,
      scope,
      expiresAt: now + CONSENT_TTL_MS,
    });
    return issueAuthorizationCode(ctx, auth, current.user.id, current.session.record.createdAt);
  });
};
