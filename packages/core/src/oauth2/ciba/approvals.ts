import type { Context } from '../../context.js';
import { ProtocolError } from '../../errors.js';
import type { InstanceSettings } from '../../feature.js';
import { readForm } from '../../http/form.js';
import type { Answer } from '../../http/reply.js';
import type { Handler } from '../../http/router.js';
import { checkFormPost, pageCsrfToken } from '../../session/csrf.js';
import type { AuthorizationDetail } from '../../tokens/authorization-details.js';
import { type ApprovalItem, type ApprovalsPageModel, approvalsPage } from '../../ui/approvals-page.js';
import { errorPage, pageLanguage } from '../../ui/pages.js';
import { PAGE_PATHS } from '../../ui/paths.js';
import { type Authentication, currentAuthentication } from '../authorize/authentication.js';
import type { AuthorizationFlow } from '../authorize/flow.js';
import { startApprovalsInteraction } from '../interaction/start.js';
import type { CibaPendingRequest } from './api.js';
import { decide, pendingRequests } from './decide.js';
import type { CibaSettings } from './settings.js';

/*
 * The approval page of backchannel authentication (CIBA) at `{base}/approvals`, for a host that
 * does not render its own (it can use `gatehouse.ciba` instead):
 *
 *   GET  /approvals   the signed-in user's pending requests, each with its binding message, what
 *                     it asks, and "Allow" / "Deny"; nobody signed in: a sign-in interaction (the
 *                     host's page or the built-in login page), which comes back here
 *   POST /approvals   a decision (`request_id`, `decision`) → the list again, with what happened
 *
 * The form is CSRF-protected as the consent page is (origin check and double-submitted token,
 * `session/csrf.ts`); a decision only ever applies to a request of the signed-in user.
 */

type PageContext = Pick<
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
  | 'limits'
  | 'ui'
  | 'session'
>;

/** A handler whose refusals are HTML error pages (a browser is the caller), never JSON. */
function asPage(handler: Handler): Handler {
  return async (request, ctx, url) => {
    try {
      return await handler(request, ctx, url);
    } catch (error) {
      if (error instanceof ProtocolError && error.status < 500)
        return errorPage(ctx, error, undefined, request);
      throw error;
    }
  };
}

type DetailsService = InstanceSettings['authorizationDetails'];

/**
 * Lines of text of one authorization detail (RFC 9396 §2): its type's words (the type's
 * `describe`, as on the consent page) when the feature knows the type, else its type and members.
 */
function detailLines(service: DetailsService, detail: AuthorizationDetail, locale: string): string[] {
  if (service !== undefined) {
    const [described] = service.describe([detail], locale);
    if (described) return [described.description];
  }
  const lines = [String(detail.type)];
  for (const [name, value] of Object.entries(detail))
    if (name !== 'type') lines.push(`${name}: ${typeof value === 'string' ? value : JSON.stringify(value)}`);
  return lines;
}

function itemOf(request: CibaPendingRequest, service: DetailsService, locale: string): ApprovalItem {
  return {
    requestId: request.requestId,
    clientName: request.client.name,
    ...(request.bindingMessage === undefined ? {} : { bindingMessage: request.bindingMessage }),
    scopes: request.scopes,
    resources: request.resources,
    ...(request.authorizationDetails === undefined
      ? {}
      : { details: request.authorizationDetails.map((detail) => detailLines(service, detail, locale)) }),
  };
}

/** The page of the signed-in user's pending requests. */
async function listPage(
  ctx: PageContext,
  service: DetailsService,
  request: Request,
  current: Authentication,
  notice?: ApprovalsPageModel['notice'],
): Promise<Answer> {
  const csrf = pageCsrfToken(ctx, request);
  const pending = await pendingRequests(ctx, current.userId);
  const locale = pageLanguage(ctx, request).context.locale;
  return approvalsPage(
    ctx,
    request,
    {
      action: ctx.site.basePath + PAGE_PATHS.approvals,
      csrfToken: csrf.token,
      requests: pending.map((item) => itemOf(item, service, locale)),
      scopeDescriptions: ctx.ui.scopeDescriptions,
      ...(notice === undefined ? {} : { notice }),
      ...(current.username === undefined ? {} : { username: current.username }),
    },
    { headers: csrf.setCookie ? { 'Set-Cookie': csrf.setCookie } : {} },
  );
}

/** `GET {base}/approvals`. */
export const approvalsPageEndpoint = (flow: AuthorizationFlow, service: DetailsService): Handler =>
  asPage(async (request, ctx: PageContext) => {
    const current = await currentAuthentication(ctx, flow, request);
    if (!current) return startApprovalsInteraction(ctx, flow, request);
    return listPage(ctx, service, request, current);
  });

/** `POST {base}/approvals`: one decision of the signed-in user, then the list again. */
export const approvalsDecisionEndpoint = (
  settings: CibaSettings,
  flow: AuthorizationFlow,
  service: DetailsService,
): Handler =>
  asPage(async (request, ctx: PageContext) => {
    const params = await readForm(request, ctx.limits.maxBodyBytes);
    await checkFormPost(ctx, request, params);
    const current = await currentAuthentication(ctx, flow, request);
    if (!current) return startApprovalsInteraction(ctx, flow, request);
    const decision = params.get('decision');
    const requestId = params.get('request_id') ?? '';
    if (decision !== 'allow' && decision !== 'deny')
      return listPage(ctx, service, request, current, 'approvalsGone');
    const decided = await decide(ctx, settings, current.userId, requestId, decision, {
      authTime: current.authTime,
      ...(current.sessionId === undefined ? {} : { sessionId: current.sessionId }),
      ...(current.acr === undefined ? {} : { acr: current.acr }),
      ...(current.amr === undefined ? {} : { amr: current.amr }),
    });
    const notice = !decided ? 'approvalsGone' : decision === 'allow' ? 'approvalsAllowed' : 'approvalsDenied';
    return listPage(ctx, service, request, current, notice);
  });
