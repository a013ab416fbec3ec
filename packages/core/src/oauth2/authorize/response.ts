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
  'invalid_request_object',
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

/** Where a request's parameters come from, which decides what was checked of them already. */
export type RequestOrigin =
  /** The browser's request to the authorization endpoint: checked in full. */
  | 'endpoint'
  /**
   * Parameters kept on the server since the request entered (an interaction's): its entry checked
   * how it was sent (pushed, signed); it is validated again, as the client may have changed.
   */
  | 'stored';

/** The parameters to validate, where they go, and how they were sent. */
export interface ResolvedTarget {
  readonly target: AuthorizationTarget;
  /** The pushed request (RFC 9126) the request names, if any. */
  readonly pushed: PushedRequest | undefined;
  /** The parameters to validate: a request object's (RFC 9101 §6.3), else the request's own. */
  readonly params: Params;
  /** The parameters came from a verified request object (RFC 9101). */
  readonly signed: boolean;
}

/**
 * The client and redirect URI of a request's parameters, the pushed request (RFC 9126) it names,
 * and the parameters of its request object (RFC 9101 `request`), verified with the client's keys:
 * only those are then read (§6.3). Throws what must be shown, never redirected (`invalid_request`
 * for an unknown client, an unregistered redirect URI, an unknown or used `request_uri`;
 * `invalid_request_object` for a request object that cannot be used: its redirect URI is not
 * trusted). `request` pays for the client lookup and a key set fetch.
 */
export async function authorizationTarget(
  ctx: Pick<Context, 'issuer' | 'clock' | 'randomBytes' | 'storage' | 'clients' | 'limits'>,
  flow: Pick<AuthorizationFlow, 'requestObjects'>,
  params: Params,
  request?: Request,
): Promise<ResolvedTarget> {
  // RFC 9126 §4: a request_uri stands for the whole pushed request; nothing else is read.
  if (namesRequestUri(params)) {
    const pushed = await resolvePushedRequest(ctx, params);
    return {
      target: await resolveAuthorizationTarget(ctx, pushed.params, request),
      pushed,
      params,
      signed: false,
    };
  }
  const object = params.get('request');
  if (object === undefined)
    return {
      target: await resolveAuthorizationTarget(ctx, params, request),
      pushed: undefined,
      params,
      signed: false,
    };
  // RFC 9101 §5: client_id is sent beside the object, which is verified with that client's keys.
  const clientId = params.get('client_id');
  if (clientId === undefined) throw invalidRequest('The client_id parameter is missing.');
  const client = await ctx.clients.findClient(clientId, request);
  if (!client) throw invalidRequest('The client is unknown.');
  const inner = await flow.requestObjects.parameters(ctx, client, object, request);
  return {
    target: await resolveAuthorizationTarget(ctx, inner, request),
    pushed: undefined,
    params: inner,
    signed: true,
  };
}

/**
 * The validated request of a target (throws a redirectable error for anything wrong in it). A
 * request entering at the endpoint (`origin`) must be pushed or signed when the instance or the
 * client says so; parameters kept since their entry were held to that then.
 */
export function validatedRequest(
  ctx: Pick<Context, 'keys' | 'tokens'>,
  flow: AuthorizationFlow,
  resolved: ResolvedTarget,
  origin: RequestOrigin = 'endpoint',
): AuthorizationRequest {
  const { target, pushed, params, signed } = resolved;
  if (origin === 'endpoint' && pushed === undefined && mustPush(flow, target.client)) {
    throw invalidRequest(
      'This client must push its authorization requests to the pushed_authorization_request_endpoint (RFC 9126).',
    );
  }
  // RFC 9101 §10.5: a plain request of a client that must sign them (a pushed one was checked when pushed).
  if (origin === 'endpoint' && pushed === undefined && !signed && flow.requestObjects.mustSign(target.client))
    throw invalidRequest(
      'This client must send its authorization requests as signed request objects (RFC 9101).',
    );
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
    | 'issuer'
    | 'clock'
    | 'randomBytes'
    | 'logger'
    | 'storage'
    | 'clients'
    | 'keys'
    | 'tokens'
    | 'ui'
    | 'limits'
  >,
  flow: AuthorizationFlow,
  params: Params,
  step: (auth: AuthorizationRequest) => Promise<Answer>,
  request?: Request,
  origin: RequestOrigin = 'endpoint',
): Promise<Answer> {
  let resolved: ResolvedTarget;
  try {
    resolved = await authorizationTarget(ctx, flow, params, request);
  } catch (error) {
    return unredirectableError(ctx, error);
  }
  const { target } = resolved;
  try {
    return await step(validatedRequest(ctx, flow, resolved, origin));
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
