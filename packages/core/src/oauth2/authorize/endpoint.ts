import type { Context } from '../../context.js';
import { queryParams, readForm } from '../../http/form.js';
import type { Handler } from '../../http/router.js';
import { currentAuthentication } from './authentication.js';
import { continueRequest } from './consent.js';
import type { AuthorizationFlow } from './flow.js';
import { authorizationStep } from './response.js';

/**
 * `GET` and `POST {base}/oauth2/v1/authorize` (RFC 6749 §4.1.1; POST with a form body, §3.1).
 * The request is validated completely first: an untrusted client or redirect URI gets an HTML
 * error page (never a redirect), other errors go back to the client. Then sign-in, consent or
 * straight to the code, as the signed-in user (the host's `interactions.currentUser`, or Gatehouse's
 * session) and the OpenID Connect parameters require (`continueRequest`).
 */
export const authorizeEndpoint =
  (flow: AuthorizationFlow): Handler =>
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
      | 'tokens'
      | 'limits'
      | 'ui'
      | 'session'
    >,
    url,
  ) => {
    const params =
      request.method === 'POST' ? await readForm(request, ctx.limits.maxBodyBytes) : queryParams(url);
    return authorizationStep(
      ctx,
      flow,
      params,
      async (auth) =>
        continueRequest(ctx, flow, request, auth, await currentAuthentication(ctx, flow, request)),
      request,
    );
  };
