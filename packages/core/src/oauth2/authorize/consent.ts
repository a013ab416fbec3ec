import type { Context } from '../../context.js';
import { invalidRequest } from '../../errors.js';
import type { Answer } from '../../http/reply.js';
import { parametersAfterLogin } from '../../oidc/authorization-parameters.js';
import { verifyIdTokenHint } from '../../oidc/id-token.js';
import { nextInteraction } from '../../oidc/interaction.js';
import { startInteraction } from '../interaction/start.js';
import type { Authentication } from './authentication.js';
import { issueAuthorizationCode } from './code.js';
import { hasConsent } from './consent-record.js';
import type { AuthorizationFlow } from './flow.js';
import type { AuthorizationRequest } from './request.js';

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
 * the scope), or the code. Sign-in and consent are interactions: the host's page when
 * `interactions.url` is set, else the built-in pages. With `prompt=none`, a needed page becomes a
 * `login_required` / `consent_required` redirect: the host is never asked.
 */
export async function continueRequest(
  ctx: Pick<
    Context,
    'issuer' | 'site' | 'clock' | 'randomBytes' | 'emit' | 'storage' | 'keys' | 'tokens' | 'limits'
  >,
  flow: AuthorizationFlow,
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
    // RFC 9396: details name one transaction (a payment, these tickets), so a remembered consent to
    // scopes never covers them; the user sees them each time.
    (auth.authorizationDetails !== undefined || !(await hasConsent(ctx, current.userId, auth)));
  const prompt = consented ? new Set([...auth.oidc.prompt].filter((p) => p !== 'consent')) : auth.oidc.prompt;
  const step = nextInteraction({
    oidc: { ...auth.oidc, prompt },
    session: current && {
      userId: current.userId,
      authTime: current.authTime,
      ...(current.acr === undefined ? {} : { acr: current.acr }),
    },
    // The host's sign-in can reach the class acr_values asks for; the built-in page cannot.
    enforceAcr: flow.interactions.url !== undefined,
    ...(hintSubject === undefined ? {} : { hintSubject }),
    consentNeeded,
    now: ctx.clock.now(),
  });
  if (step === 'login' || current === null)
    return startInteraction(ctx, flow, request, auth, 'login', hintSubject);
  if (step === 'consent') return startInteraction(ctx, flow, request, auth, 'consent', current.userId);
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
async function hintSubjectOf(ctx: Pick<Context, 'issuer' | 'keys'>, idTokenHint: string): Promise<string> {
  const hint = await verifyIdTokenHint(ctx, idTokenHint);
  if (!hint) throw invalidRequest('The id_token_hint is not an ID token of this issuer.');
  return hint.sub;
}
