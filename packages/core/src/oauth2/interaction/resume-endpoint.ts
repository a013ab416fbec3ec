import type { Context } from '../../context.js';
import { oauthError, type ProtocolError } from '../../errors.js';
import { Params } from '../../http/form.js';
import { type Answer, fieldsOf } from '../../http/reply.js';
import { noStoreEmpty } from '../../http/responses.js';
import type { Handler } from '../../http/router.js';
import { parametersAfterLogin } from '../../oidc/authorization-parameters.js';
import { endSession, startSession } from '../../session/session-cookie.js';
import { errorPage } from '../../ui/pages.js';
import { PAGE_PATHS } from '../../ui/paths.js';
import { type Authentication, currentAuthentication } from '../authorize/authentication.js';
import { afterLogin, continueRequest } from '../authorize/consent.js';
import { rememberConsent } from '../authorize/consent-record.js';
import type { AuthorizationFlow } from '../authorize/flow.js';
import { authorizationErrorRedirect, authorizationStep } from '../authorize/response.js';
import { updateFlight } from '../par/pushed-requests.js';
import { isSameBrowser } from './browser-binding.js';
import { checkHostUser } from './host-user.js';
import { findInteraction, type InteractionRecord, type StoredResult } from './record.js';

/** The error page of a refused resume: never a redirect, never a code. */
function refused(
  ctx: Pick<Context, 'issuer' | 'emit' | 'ui'>,
  request: Request,
  error: ProtocolError,
  reason: string,
): Promise<Answer> {
  ctx.emit({ type: 'interaction.refused', reason });
  return errorPage(ctx, error, undefined, request);
}

/**
 * `GET {base}/interaction/resume?interaction=<reference>`: where `gatehouse.interactions.finish`
 * sends the browser. The interaction must exist, be finished, and come from the browser that
 * started it; it is then taken (atomic get-and-delete: single use, a replay finds nothing) and the
 * authorization request it carries is validated again and continued with the host's result: a
 * denied consent → `access_denied` to the client; a sign-in as another user than the request's
 * `id_token_hint` names → `login_required` to the client; a sign-in → a new Gatehouse session (a
 * fresh id, with the host's `auth_time`, `acr`, `amr`), then consent if still needed, else the code. Anything
 * else (unknown, expired, replayed, forged, another browser, another user signed in at the host
 * meanwhile) is an error page. A device sign-in goes on to the verification page's confirmation.
 */
export const interactionResumeEndpoint =
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
    const reference = url.searchParams.get('interaction') ?? '';
    const found = await findInteraction(ctx, reference);
    const expired = oauthError(
      'invalid_request',
      'This sign-in request has expired or was already used. Go back to the application and sign in again.',
    );
    if (found === null) return refused(ctx, request, expired, 'interaction_not_found');
    const { record, stored, key } = found;
    if (!(await isSameBrowser(flow, request, record.binding))) {
      const foreign = oauthError(
        'forbidden',
        'This sign-in request was started in another browser. Go back to the application and sign in again.',
      );
      return refused(ctx, request, foreign, 'interaction_wrong_browser');
    }
    const result = record.result;
    if (result === undefined) {
      const unfinished = oauthError('invalid_request', 'This sign-in request is not complete yet.');
      return refused(ctx, request, unfinished, 'interaction_unfinished');
    }
    // Single use: of concurrent resumes, one takes the record; the others find it gone.
    if ((await ctx.storage.kv.take(key, ctx.clock.now())) !== stored)
      return refused(ctx, request, expired, 'interaction_not_found');
    if (record.flow === 'device' || record.flow === 'account')
      return resumeSignIn(ctx, flow, request, record, result);
    const params = new Params(new URLSearchParams(record.params));
    return authorizationStep(
      ctx,
      flow,
      params,
      async (auth) => {
        if (result.consent !== undefined && 'denied' in result.consent) {
          if (record.subject !== undefined)
            ctx.emit({ type: 'consent.denied', userId: record.subject, clientId: auth.client.id });
          // The user's own choice, on a page naming where it leads: redirected for every client, the
          // self-registered ones too (no open redirect without the user's doing, RFC 9700 §4.11.2).
          const denied = oauthError(
            'access_denied',
            result.consent.description ?? 'The user denied the request.',
          );
          return authorizationErrorRedirect(ctx, auth, denied);
        }
        // OpenID Connect Core §3.1.2.1: the id_token_hint names the user the client expects (a login
        // step's `subject`). A sign-in as anyone else gets that user no code and no session: the client
        // gets `login_required` (an error page for a self-registered client, as every error here).
        if (record.step === 'login' && record.subject !== undefined && result.login?.sub !== record.subject) {
          ctx.emit({ type: 'interaction.refused', reason: 'interaction_wrong_user' });
          throw oauthError(
            'login_required',
            'The user who signed in is not the one the id_token_hint names.',
          );
        }
        const signedIn = await resumedAuthentication(ctx, flow, request, record, result);
        if ('error' in signedIn) return refused(ctx, request, signedIn.error, 'interaction_wrong_user');
        let continued = result.login === undefined ? auth : afterLogin(auth);
        // A pushed request continues from its stored parameters: they lose what asked for this login.
        if (result.login !== undefined && auth.pushed)
          await updateFlight(ctx, auth.pushed, parametersAfterLogin(auth.pushed.parameters));
        const consent = result.consent;
        if (consent !== undefined) {
          const { userId } = signedIn.authentication;
          const scope = consent.remember
            ? await rememberConsent(ctx, flow, userId, auth.client, consent.scope, consent.resources)
            : consent.scope;
          ctx.emit({ type: 'consent.granted', userId, clientId: auth.client.id, scope });
          // The grant gets what the user allowed: all that was asked, or less.
          const { resources: _asked, ...rest } = continued;
          continued = {
            ...rest,
            scope: consent.scope,
            ...(consent.resources === undefined ? {} : { resources: consent.resources }),
          };
        }
        const answer = await continueRequest(ctx, flow, request, continued, signedIn.authentication, {
          consented: consent !== undefined,
        });
        for (const cookie of signedIn.setCookies) fieldsOf(answer).append('Set-Cookie', cookie);
        return answer;
        // Kept on the server since the request entered, where it was held to pushing and signing.
      },
      undefined,
      'stored',
    );
  };

/**
 * A sign-in for one of the instance's own pages, resumed: the new session, then, for a device, the
 * verification page's confirmation of the code (RFC 8628 §3.3: the user always confirms), which
 * checks the code is still pending; for an account page, the connected apps page.
 */
async function resumeSignIn(
  ctx: Pick<
    Context,
    'issuer' | 'site' | 'clock' | 'randomBytes' | 'emit' | 'logger' | 'storage' | 'users' | 'ui' | 'session'
  >,
  flow: AuthorizationFlow,
  request: Request,
  record: InteractionRecord,
  result: StoredResult,
): Promise<Answer> {
  const signedIn = await resumedAuthentication(ctx, flow, request, record, result);
  if ('error' in signedIn) return refused(ctx, request, signedIn.error, 'interaction_wrong_user');
  const query = new URLSearchParams({ user_code: record.params.user_code ?? '' });
  // The connected apps page's and the approval page's sign-ins go back to their pages.
  const page =
    record.flow === 'account'
      ? PAGE_PATHS.connectedApps
      : record.params.next === 'approvals'
        ? PAGE_PATHS.approvals
        : `${PAGE_PATHS.deviceConfirm}?${query}`;
  const headers = new Headers({
    Location: `${ctx.site.basePath}${page}`,
    'Referrer-Policy': 'same-origin',
  });
  for (const cookie of signedIn.setCookies) headers.append('Set-Cookie', cookie);
  return noStoreEmpty(303, headers);
}

/**
 * Who continues the request: the host's sign-in result, as a new Gatehouse session (never the
 * browser's old one: no fixation), or for a consent step the user signed in now, who must be the one
 * the interaction was for. With a `currentUser` hook, a host now signed in as someone else refuses.
 */
async function resumedAuthentication(
  ctx: Pick<Context, 'site' | 'clock' | 'randomBytes' | 'emit' | 'logger' | 'storage' | 'users' | 'session'>,
  flow: AuthorizationFlow,
  request: Request,
  record: InteractionRecord,
  result: StoredResult,
): Promise<{ authentication: Authentication; setCookies: string[] } | { error: ProtocolError }> {
  const otherUser = oauthError(
    'forbidden',
    'Someone else is signed in now than when this request started. Go back to the application and sign in again.',
  );
  const { login } = result;
  if (login === undefined) {
    const current = await currentAuthentication(ctx, flow, request);
    if (current === null || current.userId !== record.subject) return { error: otherUser };
    return { authentication: current, setCookies: [] };
  }
  if (flow.interactions.currentUser !== undefined) {
    let hostUser: unknown;
    try {
      hostUser = await flow.interactions.currentUser(request);
    } catch (error) {
      ctx.logger.error('gatehouse: interactions.currentUser threw', error);
      throw oauthError(
        'temporarily_unavailable',
        'The sign-in state could not be read. Try again in a moment.',
      );
    }
    if (hostUser) {
      const checked = checkHostUser(hostUser, ctx.clock.now(), ctx.clock.toleranceSeconds);
      if (checked.ok && checked.user.sub !== login.sub) return { error: otherUser };
    }
  }
  await endSession(ctx, request); // the new cookie below replaces the old one in the browser
  const { setCookie, record: session } = await startSession(ctx, login.sub, login);
  ctx.emit({ type: 'login.succeeded', userId: login.sub, via: result.via ?? 'interaction' });
  return {
    authentication: {
      userId: login.sub,
      authTime: session.createdAt,
      ...(login.acr === undefined ? {} : { acr: login.acr }),
      ...(login.amr === undefined ? {} : { amr: login.amr }),
      ...(session.sid === undefined ? {} : { sessionId: session.sid }),
    },
    setCookies: [setCookie],
  };
}
