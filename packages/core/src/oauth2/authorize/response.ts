import type { Context } from '../../context.js';
import { invalidRequest, ProtocolError, type ProtocolErrorCode, storeFullRefusal } from '../../errors.js';
import type { Params } from '../../http/form.js';
import { markRefusal } from '../../http/refusal.js';
import type { Answer } from '../../http/reply.js';
import { noStoreEmpty } from '../../http/responses.js';
import { isSelfRegistered } from '../../storage/self-registered.js';
import { isStoreFull } from '../../storage/store-full.js';
import { errorPage } from '../../ui/pages.js';
import { namesRequestUri, type PushedRequest, resolvePushedRequest } from '../par/pushed-requests.js';
import type { AuthorizationFlow } from './flow.js';
import {
  type AuthorizationRequest,
  type AuthorizationTarget,
  resolveAuthorizationTarget,
  validateAuthorizationRequest,
} from './request.js';

/** Error codes that go back to the client on its redirect URI (RFC 6749 §4.1.2.1). */
const REDIRECTABLE: ReadonlySet<ProtocolErrorCode> = new Set([
  'invalid_request',
  'unauthorized_client',
  'access_denied',
  'unsupported_response_type',
  'invalid_scope',
  // RFC 8707 §2: an unknown or refused resource.
  'invalid_target',
  // RFC 9396 §5: details of an unknown type, or refused by their type.
  'invalid_authorization_details',
  'server_error',
  'temporarily_unavailable',
  // OpenID Connect Core §3.1.2.6.
  'login_required',
  'consent_required',
  'interaction_required',
  'request_not_supported',
  'request_uri_not_supported',
]);

/**
 * A 303 to the client's redirect URI with `params`, `state` (exactly as received: `URLSearchParams`
 * encodes, the client decodes, whatever the characters) and `iss` (RFC 9207 §2, against mix-up
 * attacks). A query of the registered URI is kept as registered (RFC 6749 §3.1.2); the new
 * parameters are appended. 303 so that a POSTed request is not re-posted (RFC 9700 §4.11).
 */
export function authorizationRedirect(
  ctx: Pick<Context, 'issuer'>,
  target: Pick<AuthorizationTarget, 'redirectUri' | 'state'>,
  params: Readonly<Record<string, string>>,
): Answer {
  const url = new URL(target.redirectUri);
  url.hash = '';
  const added = new URLSearchParams(params);
  if (target.state !== undefined) added.append('state', target.state);
  added.append('iss', ctx.issuer);
  const existing = url.search.slice(1);
  url.search = existing ? `${existing}&${added}` : added.toString();
  return noStoreEmpty(303, {
    Location: url.href,
    // The authorization URL need not reach the client as a Referer.
    'Referrer-Policy': 'no-referrer',
  });
}

/**
 * The error redirect of RFC 6749 §4.1.2.1: `error`, `error_description`, `state`, `iss`; marked as
 * the refusal it is, for telemetry (`refusal.ts`).
 */
export function authorizationErrorRedirect(
  ctx: Pick<Context, 'issuer'>,
  target: AuthorizationTarget,
  error: ProtocolError,
): Answer {
  return markRefusal(
    authorizationRedirect(ctx, target, { error: error.code, error_description: error.description }),
    error.code,
  );
}

/**
 * The client and redirect URI of a request's parameters, and the pushed request (RFC 9126) it
 * names. Throws what must be shown, never redirected (`invalid_request` for an unknown client, an
 * unregistered redirect URI, an unknown or used `request_uri`).
 */
export async function authorizationTarget(
  ctx: Pick<Context, 'clock' | 'randomBytes' | 'storage' | 'clients'>,
  params: Params,
  request?: Request,
): Promise<{ target: AuthorizationTarget; pushed: PushedRequest | undefined }> {
  // RFC 9126 §4: a request_uri stands for the whole pushed request; nothing else is read.
  const pushed = namesRequestUri(params) ? await resolvePushedRequest(ctx, params) : undefined;
  return { target: await resolveAuthorizationTarget(ctx, pushed?.params ?? params, request), pushed };
}

/** The validated request of a target (throws a redirectable error for anything wrong in it). */
export function validatedRequest(
  ctx: Pick<Context, 'keys' | 'tokens'>,
  flow: AuthorizationFlow,
  target: AuthorizationTarget,
  params: Params,
  pushed: PushedRequest | undefined,
): AuthorizationRequest {
  if (pushed === undefined && mustPush(flow, target.client)) {
    throw invalidRequest(
      'This client must push its authorization requests to the pushed_authorization_request_endpoint (RFC 9126).',
    );
  }
  if (pushed === undefined)
    return validateAuthorizationRequest(ctx, target, params, flow.authorizationDetails);
  // The forms and interactions carry the in-flight reference only: the pushed parameters cannot be altered.
  const auth = validateAuthorizationRequest(ctx, target, pushed.params, flow.authorizationDetails);
  return { ...auth, parameters: pushed.formParameters, pushed };
}

/**
 * Runs one step of the authorization flow (the authorize endpoint, the interaction resume)
 * on the carried authorization parameters. The client and redirect URI are checked first: when they
 * cannot be trusted the answer is an HTML error page, never a redirect (RFC 6749 §4.1.2.1). Then the
 * request is validated completely and `step` runs; the redirectable protocol errors either throws
 * go back to the client, anything else (a refused form, a bug) propagates. A self-registered
 * client (RFC 7591, client ID metadata document) gets no error redirect without the user's doing:
 * its errors are an HTML error page (RFC 9700 §4.11.2). Only the user's own "Deny" on a consent
 * page, which the step answers itself, sends the user back to it with `access_denied`. `request`
 * pays for the client lookup (a metadata document fetch is charged to its address).
 */
export async function authorizationStep(
  ctx: Pick<
    Context,
    'issuer' | 'clock' | 'randomBytes' | 'logger' | 'storage' | 'clients' | 'keys' | 'tokens' | 'ui'
  >,
  flow: AuthorizationFlow,
  params: Params,
  step: (auth: AuthorizationRequest) => Promise<Answer>,
  request?: Request,
): Promise<Answer> {
  let target: AuthorizationTarget;
  let pushed: PushedRequest | undefined;
  try {
    ({ target, pushed } = await authorizationTarget(ctx, params, request));
  } catch (error) {
    return unredirectableError(ctx, error);
  }
  try {
    return await step(validatedRequest(ctx, flow, target, params, pushed));
  } catch (error) {
    if (error instanceof ProtocolError && REDIRECTABLE.has(error.code)) {
      if (error.status >= 500) ctx.logger.error(`gatehouse: ${error.description}`, error.cause);
      // RFC 9700 §4.11.2: anyone can register a client and its redirect URIs, so an automatic
      // error redirect to one would make this server an open redirector. Its errors are shown.
      if (isSelfRegistered(target.client)) return errorPage(ctx, error);
      return authorizationErrorRedirect(ctx, target, error);
    }
    // The browser's network over its share, or a store with no room: the person at the browser is
    // told on a page (with Retry-After); the client did nothing wrong.
    if (isStoreFull(error)) return errorPage(ctx, storeFullRefusal(error, ctx.logger));
    if (error instanceof ProtocolError && error.code === 'too_many_requests') return errorPage(ctx, error);
    throw error;
  }
}

/**
 * Whether the client may only use pushed requests (RFC 9126 §5 and §6: the instance's `required`
 * switch, or the client's `requirePushedAuthorizationRequests`).
 */
function mustPush(flow: AuthorizationFlow, client: AuthorizationTarget['client']): boolean {
  return flow.requirePushedRequests || client.requirePushedAuthorizationRequests === true;
}

/** An authorization request that cannot be redirected: an HTML error page, status 400. */
export async function unredirectableError(
  ctx: Pick<Context, 'issuer' | 'ui'>,
  error: unknown,
): Promise<Answer> {
  if (error instanceof ProtocolError && error.status < 500) return errorPage(ctx, error);
  throw error;
}
