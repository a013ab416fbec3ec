import type { Context } from '../../context.js';
import { invalidRequest, ProtocolError } from '../../errors.js';
import { type Params, queryParams, readForm } from '../../http/form.js';
import { isForeignBrowserRequest } from '../../http/origin.js';
import type { Answer } from '../../http/reply.js';
import { noStoreEmpty } from '../../http/responses.js';
import type { Handler } from '../../http/router.js';
import { checkFormPost, crossSiteRefused, pageCsrfToken } from '../../session/csrf.js';
import type { ClientRecord } from '../../storage/types.js';
import { clientDisplay } from '../../ui/display-text.js';
import { formTargetSource } from '../../ui/page-response.js';
import { consentPage, errorPage, pageLanguage } from '../../ui/pages.js';
import { PAGE_PATHS } from '../../ui/paths.js';
import { currentAuthentication } from '../authorize/authentication.js';
import { continueRequest } from '../authorize/consent.js';
import type { AuthorizationFlow } from '../authorize/flow.js';
import { completeLoginForm, type LoginStepOptions, renderLoginForm } from '../authorize/login.js';
import type { AuthorizationRequest } from '../authorize/request.js';
import { parseScope } from '../scope.js';
import { InteractionError } from './interaction-error.js';
import { finishInteraction, pendingInteraction, storedDevice, storedRequest } from './interactions-api.js';
import type { InteractionRecord } from './record.js';
import type { ConsentResult, InteractionStep } from './types.js';

/*
 * The built-in login and consent pages: the default interaction handlers (no `interactions.url`).
 * They are clients of the same calls a host's own pages make — the interaction's details, then
 * `finish` and the resume — with the built-in renderers, CSRF protection and password attempt
 * limits. The authorization request never travels through the page: it stays in the interaction,
 * and the forms carry only its reference (hidden field `interaction`). The device verification
 * page's sign-in is a login interaction too, handled by the same login page.
 *
 *   GET  {base}/login?interaction=…     the login page of a login interaction
 *   POST {base}/login                   username, password → finish { login } → 303 to the resume
 *   GET  {base}/consent?interaction=…   the consent page of a consent interaction
 *   POST {base}/consent                 decision=allow|deny → finish { consent } → 303 to the resume
 */

/**
 * A live interaction of this browser at the page of its step, and what it is for: an
 * authorization request (`auth`), or a device sign-in (no `auth`: the client only, and not even
 * that before the typed code was looked up).
 */
interface Pending {
  readonly reference: string;
  readonly record: InteractionRecord;
  readonly client?: ClientRecord;
  readonly auth?: AuthorizationRequest;
}

/** {@link Pending} of an authorization request (a consent step is never a device's). */
type PendingRequest = Pending & { readonly auth: AuthorizationRequest };

async function pendingAt(
  ctx: Pick<Context, 'clock' | 'randomBytes' | 'emit' | 'storage' | 'clients' | 'keys' | 'tokens'>,
  flow: AuthorizationFlow,
  request: Request,
  reference: string,
  step: InteractionStep,
): Promise<Pending> {
  const { record } = await pendingInteraction(ctx, flow, reference, request);
  if (record.step !== step)
    throw new InteractionError('interaction_not_found', `This sign-in request does not ask for ${step}.`);
  if (record.flow === 'device') return { reference, record, ...(await storedDevice(ctx, record)) };
  const auth = await storedRequest(ctx, flow, record);
  return { reference, record, client: auth.client, auth };
}

/** The page of a refusal: an interaction error (400, 403 for another browser) or a bad form. */
function refusal(ctx: Pick<Context, 'issuer' | 'ui'>, request: Request, error: unknown): Promise<Answer> {
  if (error instanceof InteractionError) {
    const code = error.status === 403 ? 'forbidden' : 'invalid_request';
    return errorPage(ctx, new ProtocolError(code, error.message), undefined, request);
  }
  if (error instanceof ProtocolError && error.status < 500) return errorPage(ctx, error, undefined, request);
  throw error;
}

/** A GET page of a step, `?interaction=<reference>`. */
function stepPage(
  flow: AuthorizationFlow,
  step: InteractionStep,
  render: (ctx: Context, request: Request, pending: Pending) => Promise<Answer>,
): Handler {
  return async (request, ctx, url) => {
    try {
      const reference = queryParams(url).get('interaction') ?? '';
      return await render(ctx, request, await pendingAt(ctx, flow, request, reference, step));
    } catch (error) {
      return refusal(ctx, request, error);
    }
  };
}

/** A form POST of a step: same-origin only, its interaction named by the `interaction` field. */
function stepForm(
  flow: AuthorizationFlow,
  step: InteractionStep,
  handle: (ctx: Context, request: Request, pending: Pending, params: Params) => Promise<Answer>,
): Handler {
  return async (request, ctx) => {
    if (isForeignBrowserRequest(ctx, request))
      return errorPage(ctx, crossSiteRefused(ctx, request), undefined, request);
    try {
      const params = await readForm(request, ctx.limits.maxBodyBytes);
      const pending = await pendingAt(ctx, flow, request, params.get('interaction') ?? '', step);
      return await handle(ctx, request, pending, params);
    } catch (error) {
      return refusal(ctx, request, error);
    }
  };
}

/** The form's POST ends, through the resume, at the client: CSP `form-action` names its origin. */
function formTarget(auth: AuthorizationRequest): { formTarget?: string } {
  const target = formTargetSource(auth.redirectUri);
  return target ? { formTarget: target } : {};
}

/** 303 to where `finish` sends the browser (the resume). */
function toResume(location: string): Answer {
  return noStoreEmpty(303, { Location: location, 'Referrer-Policy': 'same-origin' });
}

function renderLogin(
  ctx: Pick<Context, 'site' | 'randomBytes' | 'ui' | 'session'>,
  request: Request,
  pending: Pending,
  options: LoginStepOptions = {},
) {
  const { auth, reference } = pending;
  return renderLoginForm(
    ctx,
    request,
    {
      action: ctx.site.basePath + PAGE_PATHS.login,
      hiddenFields: { interaction: reference },
      ...(pending.client === undefined ? {} : clientDisplay(pending.client)),
      // OpenID Connect Core §3.1.2.1: login_hint prefills the username.
      ...(auth?.oidc.loginHint === undefined ? {} : { username: auth.oidc.loginHint }),
      ...(auth === undefined ? {} : { ...formTarget(auth), uiLocales: auth.oidc.uiLocales }),
    },
    options,
  );
}

/** `GET {base}/login?interaction=<reference>`: the login page of a login interaction. */
export const builtInLoginPage = (flow: AuthorizationFlow): Handler =>
  stepPage(flow, 'login', (ctx: Pick<Context, 'site' | 'randomBytes' | 'ui' | 'session'>, request, pending) =>
    renderLogin(ctx, request, pending),
  );

/**
 * `POST {base}/login`: CSRF token, then the password attempt (`completeLoginForm`: credential
 * limits, brute-force limit, bounded checks); a verified password finishes the interaction with
 * `amr: ["pwd"]`, and the browser goes to the resume, which starts the session.
 */
export const builtInLoginForm = (flow: AuthorizationFlow): Handler =>
  stepForm(
    flow,
    'login',
    (
      ctx: Pick<
        Context,
        | 'issuer'
        | 'site'
        | 'clock'
        | 'randomBytes'
        | 'emit'
        | 'storage'
        | 'clients'
        | 'users'
        | 'keys'
        | 'tokens'
        | 'limits'
        | 'ui'
        | 'session'
      >,
      request,
      pending,
      params,
    ) =>
      completeLoginForm(ctx, request, params, {
        render: (options) => renderLogin(ctx, request, pending, options),
        signedIn: async (user) => {
          const result = { login: { sub: user.id, amr: ['pwd'] } };
          const { location } = await finishInteraction(
            ctx,
            flow,
            request,
            result,
            pending.reference,
            'login-page',
          );
          return toResume(location);
        },
      }),
  );

/** `GET {base}/consent?interaction=<reference>`: the consent page of a consent interaction. */
export const builtInConsentPage = (flow: AuthorizationFlow): Handler =>
  stepPage(
    flow,
    'consent',
    async (
      ctx: Pick<
        Context,
        'site' | 'clock' | 'randomBytes' | 'logger' | 'storage' | 'users' | 'ui' | 'session'
      >,
      request,
      pending,
    ) => {
      const { auth, reference, record } = pending as PendingRequest;
      const csrf = pageCsrfToken(ctx, request);
      const current = await currentAuthentication(ctx, flow, request);
      const username = current?.userId === record.subject ? current?.username : undefined;
      const scopes = parseScope(auth.scope);
      const target = formTarget(auth).formTarget;
      return consentPage(
        ctx,
        request,
        {
          action: ctx.site.basePath + PAGE_PATHS.consent,
          csrfToken: csrf.token,
          hiddenFields: { interaction: reference },
          ...clientDisplay(auth.client),
          redirectHost: new URL(auth.redirectUri).host,
          scopes,
          scopeDescriptions: Object.fromEntries(
            scopes
              .filter((scope) => Object.hasOwn(ctx.ui.scopeDescriptions, scope))
              .map((scope) => [scope, ctx.ui.scopeDescriptions[scope]!]),
          ),
          ...(auth.resources && auth.resources.length > 0 ? { resources: auth.resources } : {}),
          // RFC 9396 §13: what the details allow, in the types' words, in the page's language.
          ...(auth.authorizationDetails && flow.authorizationDetails
            ? {
                authorizationDetails: flow.authorizationDetails
                  .describe(
                    auth.authorizationDetails,
                    pageLanguage(ctx, request, auth.oidc.uiLocales).context.locale,
                  )
                  .map(({ type, description }) => ({ type, description })),
              }
            : {}),
          ...(username === undefined ? {} : { username }),
        },
        {
          headers: csrf.setCookie ? { 'Set-Cookie': csrf.setCookie } : {},
          formTargets: target ? [target] : [],
        },
        auth.oidc.uiLocales,
      );
    },
  );

/**
 * `POST {base}/consent`: CSRF token, then the user's decision finishes the interaction ("allow":
 * all that was asked, remembered; "deny": `access_denied` to the client, through the resume).
 * When the user the consent was for is no longer signed in (signed out, or someone else in another
 * tab), the request starts over from who is signed in now: a consent counts only for its user.
 */
export const builtInConsentForm = (flow: AuthorizationFlow): Handler =>
  stepForm(
    flow,
    'consent',
    async (
      ctx: Pick<
        Context,
        | 'issuer'
        | 'site'
        | 'clock'
        | 'randomBytes'
        | 'emit'
        | 'logger'
        | 'storage'
        | 'clients'
        | 'users'
        | 'keys'
        | 'tokens'
        | 'limits'
        | 'session'
      >,
      request,
      pending,
      params,
    ) => {
      await checkFormPost(ctx, request, params);
      const decision = params.get('decision');
      if (decision !== 'allow' && decision !== 'deny')
        throw invalidRequest('The consent decision must be "allow" or "deny".');
      const current = await currentAuthentication(ctx, flow, request);
      if (current?.userId !== pending.record.subject)
        return continueRequest(ctx, flow, request, (pending as PendingRequest).auth, current);
      const consent: ConsentResult = decision === 'allow' ? {} : { denied: true };
      const { location } = await finishInteraction(ctx, flow, request, { consent }, pending.reference);
      return toResume(location);
    },
  );
