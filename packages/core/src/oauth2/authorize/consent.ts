import type { Context } from '../../context.js';
import { invalidRequest, oauthError, ProtocolError } from '../../errors.js';
import { readForm } from '../../http/form.js';
import type { Answer } from '../../http/reply.js';
import type { Handler } from '../../http/router.js';
import { verifyIdTokenHint } from '../../oidc/id-token.js';
import { nextInteraction } from '../../oidc/interaction.js';
import { checkFormPost, pageCsrfToken } from '../../session/csrf.js';
import { type SessionUser, sessionUser } from '../../session/session-user.js';
import type { ConsentRecord } from '../../storage/types.js';
import { formTargetSource } from '../../ui/page-response.js';
import { consentPage, errorPage } from '../../ui/pages.js';
import { PAGE_PATHS } from '../../ui/paths.js';
import { resourcesCovered } from '../resource-indicators.js';
import { isScopeSubset, parseScope } from '../scope.js';
import { issueAuthorizationCode } from './code.js';
import { CONSENT_TTL_MS } from './consent-lifetime.js';
import { renderLoginStep } from './login.js';
import type { AuthorizationRequest } from './request.js';
import { authorizationStep } from './response.js';

/**
 * Continues a validated authorization request with the browser's session (or none), as
 * {@link nextInteraction} decides (OpenID Connect Core §3.1.2.3–§3.1.2.4): the login page (no
 * session, `prompt=login`, an authentication older than `max_age`, another user than the
 * `id_token_hint` names), the consent page (`prompt=consent`, or a third-party client without a
 * remembered consent covering the scope), or the code. With `prompt=none`, a needed page becomes a
 * `login_required` / `consent_required` redirect.
 */
export async function continueRequest(
  ctx: Context,
  request: Request,
  auth: AuthorizationRequest,
  current: SessionUser | null,
): Promise<Answer> {
  const hintSubject =
    auth.oidc.idTokenHint === undefined ? undefined : await hintSubjectOf(ctx, auth.oidc.idTokenHint);
  const consentNeeded =
    current !== null && !auth.client.firstParty && !(await hasConsent(ctx, current.user.id, auth));
  const step = nextInteraction({
    oidc: auth.oidc,
    session: current && { userId: current.user.id, authTime: current.session.record.createdAt },
    ...(hintSubject === undefined ? {} : { hintSubject }),
    consentNeeded,
    now: ctx.now(),
  });
  if (step === 'login' || current === null) return renderLoginStep(ctx, request, auth);
  if (step === 'consent') return renderConsentStep(ctx, request, auth, current);
  return issueAuthorizationCode(ctx, auth, current.session.record);
}

/** The user an `id_token_hint` names; `invalid_request` when it is not an ID token of this issuer. */
async function hintSubjectOf(ctx: Context, idTokenHint: string): Promise<string> {
  const hint = await verifyIdTokenHint(ctx, idTokenHint);
  if (!hint) throw invalidRequest('The id_token_hint is not an ID token of this issuer.');
  return hint.sub;
}

/**
 * Whether the user's remembered consent covers the request: its scope and its resources (RFC 8707).
 * A request for a resource the user never allowed this client asks again, so a grant's audience is
 * always one the user consented to.
 */
async function hasConsent(ctx: Context, userId: string, auth: AuthorizationRequest): Promise<boolean> {
  const consent = await liveConsent(ctx, userId, auth.client.id, ctx.now());
  return (
    consent !== null &&
    isScopeSubset(auth.scope, consent.scope) &&
    resourcesCovered(auth.resources, consentedResources(consent))
  );
}

/**
 * The user's remembered consent for the client, unless `revokeUser` marked the user after it was
 * given: a revocation (account compromise, password change) also takes back what the user allowed
 * clients, so each asks again. The time is kept in `ext.consentedAt` (no migration); a consent
 * without it predates this rule and counts as given before any mark.
 */
async function liveConsent(
  ctx: Context,
  userId: string,
  clientId: string,
  now: number,
): Promise<ConsentRecord | null> {
  const consent = await ctx.storage.consents.findConsent(userId, clientId, now);
  if (consent === null) return null;
  const mark = await ctx.storage.grants.subjectRevokedAt?.(userId, now);
  if (mark === undefined || mark === null) return consent;
  const consentedAt = consent.ext?.consentedAt;
  return typeof consentedAt === 'number' && consentedAt > mark ? consent : null;
}

/**
 * The resources a consent covers besides the default audience. Kept in the record's `ext` (the
 * storage contract stores it losslessly on every engine, so no migration): `ext.resources`.
 */
function consentedResources(consent: ConsentRecord | null): readonly string[] | undefined {
  const resources = consent?.ext?.resources;
  return Array.isArray(resources) && resources.every((r) => typeof r === 'string') ? resources : undefined;
}

/**
 * The `ext` of a consent merged from an earlier one and the resources just allowed, stamped with
 * when it was given (see {@link liveConsent}).
 */
function consentExtensions(
  previous: ConsentRecord | null,
  resources: readonly string[] | undefined,
  now: number,
): NonNullable<ConsentRecord['ext']> {
  const merged = [...new Set([...(consentedResources(previous) ?? []), ...(resources ?? [])])];
  return { ...previous?.ext, ...(merged.length === 0 ? {} : { resources: merged }), consentedAt: now };
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
  const scopes = parseScope(auth.scope);
  return consentPage(
    ctx,
    {
      action: ctx.basePath + PAGE_PATHS.consent,
      csrfToken: csrf.token,
      hiddenFields: auth.parameters,
      clientName: auth.client.name ?? auth.client.id,
      redirectHost: new URL(auth.redirectUri).host,
      scopes,
      scopeDescriptions: Object.fromEntries(
        scopes
          .filter((scope) => Object.hasOwn(ctx.ui.scopeDescriptions, scope))
          .map((scope) => [scope, ctx.ui.scopeDescriptions[scope]!]),
      ),
      ...(auth.resources && auth.resources.length > 0 ? { resources: auth.resources } : {}),
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
    if (decision === 'deny') {
      ctx.emit({ type: 'consent.denied', userId: current.user.id, clientId: auth.client.id });
      throw oauthError('access_denied', 'The user denied the request.');
    }
    if (decision !== 'allow') throw invalidRequest('The consent decision must be "allow" or "deny".');
    const now = ctx.now();
    // A consent taken back by `revokeUser` is not merged into the new one.
    const previous = await liveConsent(ctx, current.user.id, auth.client.id, now);
    const scope = [...new Set([...parseScope(previous?.scope ?? ''), ...parseScope(auth.scope)])].join(' ');
    await ctx.storage.consents.saveConsent({
      userId: current.user.id,
      clientId: auth.client.id,
      scope,
      expiresAt: now + CONSENT_TTL_MS,
      ext: consentExtensions(previous, auth.resources, now),
    });
    ctx.emit({ type: 'consent.granted', userId: current.user.id, clientId: auth.client.id, scope });
    return issueAuthorizationCode(ctx, auth, current.session.record);
  });
};
