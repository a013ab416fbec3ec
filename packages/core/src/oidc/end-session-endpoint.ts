import type { Context } from '../context.js';
import { ProtocolError } from '../errors.js';
import { queryParams, readForm } from '../http/form.js';
import type { Answer } from '../http/reply.js';
import type { Handler } from '../http/router.js';
import { checkFormPost, pageCsrfToken } from '../session/csrf.js';
import { signOut } from '../session/ending.js';
import type { SessionLifecycle } from '../session/lifecycle.js';
import { sessionUser } from '../session/session-user.js';
import { clientDisplay } from '../ui/display-text.js';
import { formTargetSource } from '../ui/page-response.js';
import { endSessionPage, errorPage } from '../ui/pages.js';
import { OIDC_ENDPOINTS } from './discovery.js';
import {
  type EndSessionRequest,
  endSessionNeedsConfirmation,
  validateEndSessionRequest,
} from './end-session-request.js';

/**
 * `GET` and `POST {base}/oauth2/v1/end-session`: OpenID Connect RP-Initiated Logout 1.0. The request
 * is validated first (a bad one gets an error page, never a redirect). When it cannot prove that it
 * comes from the session's own relying party (no `id_token_hint` naming the session's user and
 * session), the user confirms on a page whose form posts back with its CSRF token, from this
 * origin only. Then the session ends (its cookie and `sid` are dead everywhere) and the browser
 * goes to the registered `post_logout_redirect_uri` with `state`, or sees the signed-out page; the
 * session's relying parties are told through the session lifecycle (back-channel logout).
 */
export const endSessionEndpoint =
  (sessions: SessionLifecycle): Handler =>
  async (
    request,
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
      | 'limits'
      | 'ui'
      | 'session'
    >,
    url,
  ) => {
    const params =
      request.method === 'POST' ? await readForm(request, ctx.limits.maxBodyBytes) : queryParams(url);
    let logout: EndSessionRequest;
    try {
      logout = await validateEndSessionRequest(ctx, params, request);
      // The confirmation form posts back with its token; a relying party's own POST has none.
      if (request.method === 'POST' && params.has('csrf_token')) await checkFormPost(ctx, request, params);
    } catch (error) {
      if (error instanceof ProtocolError && error.status < 500)
        return errorPage(ctx, error, undefined, request);
      throw error;
    }
    const current = await sessionUser(ctx, request);
    const confirmed = request.method === 'POST' && params.has('csrf_token');
    const target = logout.postLogoutRedirectUri && formTargetSource(logout.postLogoutRedirectUri);
    if (
      !confirmed &&
      endSessionNeedsConfirmation(logout, current && { userId: current.user.id, ...sidOf(current) })
    ) {
      const csrf = pageCsrfToken(ctx, request);
      return endSessionPage(
        ctx,
        request,
        {
          action: ctx.site.basePath + OIDC_ENDPOINTS.endSession,
          csrfToken: csrf.token,
          hiddenFields: logout.parameters,
          state: 'confirm',
          ...(logout.client ? { clientName: clientDisplay(logout.client).clientName } : {}),
          ...(current?.user.username === undefined ? {} : { username: current.user.username }),
        },
        {
          headers: csrf.setCookie ? { 'Set-Cookie': csrf.setCookie } : {},
          formTargets: target ? [target] : [],
        },
      );
    }
    const expired = await signOut(ctx, sessions, request, current);
    if (logout.postLogoutRedirectUri !== undefined) return postLogoutRedirect(logout, expired);
    return endSessionPage(
      ctx,
      request,
      { action: '', csrfToken: '', hiddenFields: {}, state: 'signed-out' },
      { headers: { 'Set-Cookie': expired } },
    );
  };

function sidOf(current: { readonly session: { readonly record: { readonly sid?: string } } }) {
  const { sid } = current.session.record;
  return sid === undefined ? {} : { sid };
}

/**
 * 303 to the registered post-logout URI with `state` exactly as received (RP-Initiated Logout 1.0
 * §3), its own query kept as registered.
 */
function postLogoutRedirect(logout: EndSessionRequest, setCookie: string): Answer {
  const url = new URL(logout.postLogoutRedirectUri!);
  if (logout.state !== undefined) url.searchParams.append('state', logout.state);
  return new Response(null, {
    status: 303,
    headers: {
      Location: url.href,
      'Set-Cookie': setCookie,
      'Cache-Control': 'no-store',
      'Referrer-Policy': 'no-referrer',
    },
  });
}
