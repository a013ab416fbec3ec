import type { Context } from '../context.js';
import { ProtocolError } from '../errors.js';
import { readForm } from '../http/form.js';
import { noStoreEmpty } from '../http/responses.js';
import type { Handler } from '../http/router.js';
import { errorPageOrJson, logoutPage, wantsHtml } from '../ui/pages.js';
import { PAGE_PATHS } from '../ui/paths.js';
import { checkSameOriginOrToken, pageCsrfToken } from './csrf.js';
import { signOut } from './ending.js';
import type { SessionLifecycle } from './lifecycle.js';
import { sessionUser } from './session-user.js';

/** `GET {base}/logout`: a confirmation form (POST with its CSRF token), or "signed out" without a session. */
export const logoutPageEndpoint: Handler = async (
  request,
  ctx: Pick<Context, 'site' | 'clock' | 'randomBytes' | 'storage' | 'users' | 'ui' | 'session'>,
) => {
  const current = await sessionUser(ctx, request);
  const csrf = pageCsrfToken(ctx, request);
  return logoutPage(
    ctx,
    request,
    {
      action: ctx.site.basePath + PAGE_PATHS.logout,
      csrfToken: csrf.token,
      state: current ? 'confirm' : 'signed-out',
      ...(current?.user.username === undefined ? {} : { username: current.user.username }),
    },
    { headers: csrf.setCookie ? { 'Set-Cookie': csrf.setCookie } : {} },
  );
};

/**
 * `POST {base}/logout`: with the confirmation form's token, or from a same-origin script (`Origin`
 * or `Sec-Fetch-Site: same-origin`), deletes the session and expires the cookie; the old cookie
 * value is dead everywhere from then on (and the session's relying parties are told, through the
 * session lifecycle). Cross-site → 403. Answers the "signed out" page to a form post, 204 to a
 * script. Idempotent: without a session it answers the same.
 */
export const logoutEndpoint =
  (sessions: SessionLifecycle): Handler =>
  async (
    request,
    ctx: Pick<
      Context,
      'issuer' | 'site' | 'clock' | 'emit' | 'logger' | 'storage' | 'users' | 'limits' | 'ui' | 'session'
    >,
  ) => {
    const params = await readForm(request, ctx.limits.maxBodyBytes);
    try {
      await checkSameOriginOrToken(ctx, request, params);
    } catch (error) {
      if (error instanceof ProtocolError) return errorPageOrJson(ctx, request, error);
      throw error;
    }
    const expired = await signOut(ctx, sessions, request, await sessionUser(ctx, request));
    const headers = { 'Set-Cookie': expired };
    if (!wantsHtml(request)) return noStoreEmpty(204, headers);
    return logoutPage(
      ctx,
      request,
      { action: ctx.site.basePath + PAGE_PATHS.logout, csrfToken: '', state: 'signed-out' },
      { headers },
    );
  };
