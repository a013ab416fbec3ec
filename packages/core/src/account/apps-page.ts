import type { Context } from '../context.js';
import { invalidRequest, ProtocolError } from '../errors.js';
import { readForm } from '../http/form.js';
import { isForeignBrowserRequest } from '../http/origin.js';
import type { Answer } from '../http/reply.js';
import type { Handler } from '../http/router.js';
import { type Authentication, currentAuthentication } from '../oauth2/authorize/authentication.js';
import type { AuthorizationFlow } from '../oauth2/authorize/flow.js';
import { startAccountInteraction } from '../oauth2/interaction/start.js';
import { checkFormPost, crossSiteRefused, pageCsrfToken } from '../session/csrf.js';
import { type ConnectedAppsPageModel, connectedAppsPage } from '../ui/connected-apps-page.js';
import { errorPage } from '../ui/pages.js';
import { PAGE_PATHS } from '../ui/paths.js';
import { connectedApps, revokeApp } from './connected-apps.js';

/*
 * The connected apps page (`{base}/account/apps`): who is signed in comes from Gatehouse's session
 * (or the host's `interactions.currentUser`), as on the authorization endpoint; a browser without
 * one signs in first (a login interaction of the `account` flow, the same login page as any
 * sign-in) and comes back here. The revoke form is CSRF-protected like every built-in form (origin
 * check, double-submitted token: `session/csrf.ts`) and can only revoke the signed-in user's own
 * grants: the user comes from the session, never from the form.
 */

type PageContext = Omit<Context, 'keys'>;

/** The page for the signed-in user, with a fresh list (after a revocation, its outcome). */
async function renderApps(
  ctx: PageContext,
  request: Request,
  current: Authentication,
  notice?: ConnectedAppsPageModel['notice'],
): Promise<Answer> {
  const apps = await connectedApps(ctx, current.userId);
  const csrf = pageCsrfToken(ctx, request);
  return connectedAppsPage(
    ctx,
    request,
    {
      action: ctx.site.basePath + PAGE_PATHS.connectedApps,
      csrfToken: csrf.token,
      apps: apps.map((app) => ({
        clientId: app.clientId,
        ...(app.clientName === undefined ? {} : { clientName: app.clientName }),
        scopes: app.scope,
        ...(app.since === undefined ? {} : { since: app.since }),
        lastUsedAt: app.lastUsedAt,
      })),
      ...(current.username === undefined ? {} : { username: current.username }),
      ...(notice === undefined ? {} : { notice }),
    },
    { headers: csrf.setCookie ? { 'Set-Cookie': csrf.setCookie } : {} },
  );
}

/** A refusal a browser sees: an HTML error page for a 4xx, thrown on for the rest. */
async function asPage(ctx: PageContext, request: Request, run: () => Promise<Answer>): Promise<Answer> {
  try {
    return await run();
  } catch (error) {
    if (error instanceof ProtocolError && error.status < 500)
      return errorPage(ctx, error, undefined, request);
    throw error;
  }
}

/** `GET {base}/account/apps`: the list, or the sign-in first. */
export const connectedAppsPageEndpoint =
  (flow: AuthorizationFlow): Handler =>
  (request, ctx) =>
    asPage(ctx, request, async () => {
      const current = await currentAuthentication(ctx, flow, request);
      if (current === null) return startAccountInteraction(ctx, flow, request);
      return renderApps(ctx, request, current);
    });

/**
 * `POST {base}/account/apps` (`client_id`, `csrf_token`): revokes the signed-in user's grants to
 * that client (`revokeApp`) and shows the list again with the outcome. Cross-site or without the
 * form's token: 403. Signed out meanwhile: the sign-in, then the list (nothing revoked).
 */
export const revokeAppEndpoint =
  (flow: AuthorizationFlow): Handler =>
  (request, ctx) =>
    asPage(ctx, request, async () => {
      if (isForeignBrowserRequest(ctx, request)) throw crossSiteRefused(ctx, request);
      const params = await readForm(request, ctx.limits.maxBodyBytes);
      await checkFormPost(ctx, request, params);
      const current = await currentAuthentication(ctx, flow, request);
      if (current === null) return startAccountInteraction(ctx, flow, request);
      const clientId = params.get('client_id');
      if (clientId === undefined || clientId === '' || clientId.length > 2048)
        throw invalidRequest('The form names no application (client_id).');
      const before = await connectedApps(ctx, current.userId);
      const app = before.find((candidate) => candidate.clientId === clientId);
      const revoked = await revokeApp(ctx, current.userId, clientId);
      return renderApps(
        ctx,
        request,
        current,
        revoked > 0
          ? { kind: 'revoked', client: app?.clientName ?? clientId }
          : { kind: 'nothing-to-revoke' },
      );
    });
