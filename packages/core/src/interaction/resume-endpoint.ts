import type { Context } from '../context.js';
import { oauthError, type ProtocolError } from '../errors.js';
import { Params } from '../http/form.js';
import type { Answer } from '../http/reply.js';
import type { Handler } from '../http/router.js';
import { type Authentication, currentAuthentication } from '../oauth2/authorize/authentication.js';
import { afterLogin, continueRequest } from '../oauth2/authorize/consent.js';
import { rememberConsent } from '../oauth2/authorize/consent-record.js';
import { authorizationStep } from '../oauth2/authorize/response.js';
import { endSession, startSession } from '../session/session-cookie.js';
import { errorPage } from '../ui/pages.js';
import { isSameBrowser } from './browser-binding.js';
import { checkHostUser } from './host-user.js';
import { findInteraction, type InteractionRecord, type StoredResult } from './record.js';

/** The error page of a refused resume: never a redirect, never a code. */
function refused(ctx: Context, request: Request, error: ProtocolError, reason: string): Promise<Answer> {
  ctx.emit({ type: 'interaction.refused', reason });
  return errorPage(ctx, error, undefined, request);
}

/**
 * `GET {base}/interaction/resume?interaction=<reference>`: where `gatehouse.interactions.finish`
 * sends the browser. The interaction must exist, be finished, and come from the browser that
 * started it; it is then taken (atomic get-and-delete: single use, a replay finds nothing) and the
 * authorization request it carries is validated again and continued with the host's result: a
 * denied consent → `access_denied` to the client; a sign-in → a new Gatehouse session (a fresh id,
 * with the host's `auth_time`, `acr`, `amr`), then consent if still needed, else the code. Anything
 * else (unknown, expired, replayed, forged, another browser, another user signed in at the host
 * meanwhile) is an error page.
 */
export const interactionResumeEndpoint: Handler = async (request, ctx, url) => {
  const reference = url.searchParams.get('interaction') ?? '';
  const found = await findInteraction(ctx, reference);
  const expired = oauthError(
    'invalid_request',
    'This sign-in request has expired or was already used. Go back to the application and sign in again.',
  );
  if (found === null) return refused(ctx, request, expired, 'interaction_not_found');
  const { record, stored, key } = found;
  if (!(await isSameBrowser(ctx, request, record.binding))) {
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
  if ((await ctx.storage.kv.take(key, ctx.now())) !== stored)
    return refused(ctx, request, expired, 'interaction_not_found');
  return authorizationStep(ctx, new Params(new URLSearchParams(record.params)), async (auth) => {
    if (result.consent !== undefined && 'denied' in result.consent)
      throw oauthError('access_denied', result.consent.description ?? 'The user denied the request.');
    const signedIn = await resumedAuthentication(ctx, request, record, result);
    if ('error' in signedIn) return refused(ctx, request, signedIn.error, 'interaction_wrong_user');
    let continued = result.login === undefined ? auth : afterLogin(auth);
    const consent = result.consent;
    if (consent !== undefined) {
      if (consent.remember)
        await rememberConsent(
          ctx,
          signedIn.authentication.userId,
          auth.client.id,
          consent.scope,
          consent.resources,
        );
      // The grant gets what the user allowed: all that was asked, or less.
      const { resources: _asked, ...rest } = continued;
      continued = {
        ...rest,
        scope: consent.scope,
        ...(consent.resources === undefined ? {} : { resources: consent.resources }),
      };
    }
    const answer = await continueRequest(ctx, request, continued, signedIn.authentication, {
      consented: consent !== undefined,
    });
    for (const cookie of signedIn.setCookies) answer.headers.append('Set-Cookie', cookie);
    return answer;
  });
};

/**
 * Who continues the request: the host's sign-in result, as a new Gatehouse session (never the
 * browser's old one: no fixation), or for a consent step the user signed in now, who must be the one
 * the interaction was for. With a `currentUser` hook, a host now signed in as someone else refuses.
 */
async function resumedAuthentication(
  ctx: Context,
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
    const current = await currentAuthentication(ctx, request);
    if (current === null || current.userId !== record.subject) return { error: otherUser };
    return { authentication: current, setCookies: [] };
  }
  if (ctx.interactions.currentUser !== undefined) {
    let hostUser: unknown;
    try {
      hostUser = await ctx.interactions.currentUser(request);
    } catch (error) {
      ctx.logger.error('gatehouse: interactions.currentUser threw', error);
      throw oauthError(
        'temporarily_unavailable',
        'The sign-in state could not be read. Try again in a moment.',
      );
    }
    if (hostUser) {
      const checked = checkHostUser(hostUser, ctx.now(), ctx.clockToleranceSeconds);
      if (checked.ok && checked.user.sub !== login.sub) return { error: otherUser };
    }
  }
  await endSession(ctx, request); // the new cookie below replaces the old one in the browser
  const { setCookie, record: session } = await startSession(ctx, login.sub, login);
  ctx.emit({ type: 'login.succeeded', userId: login.sub, via: 'interaction' });
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
