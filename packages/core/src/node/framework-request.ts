/**
 * What the Node adapters (Express, Koa, Fastify) hand the bridge about a request, built once here:
 * each framework already knows the public origin and the client address through its own proxy
 * settings, and only the mount path differs in how it is found.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { PreParsedBody } from './pre-parsed-body.js';
import { headerOnlyRequest, type ToWebRequestOptions } from './web-request.js';

/**
 * A request as a Node framework sees it through its proxy settings: Express's `req`, Koa's `ctx`
 * and Fastify 5's `request` all have these three members (Express `trust proxy`, Koa `app.proxy`,
 * Fastify `trustProxy`). Read as getters: each is read at most once, and only when needed.
 */
export interface ProxyAwareRequest {
  /** `http` or `https`: the socket's, or a trusted proxy's `X-Forwarded-Proto`. */
  readonly protocol: string;
  /** Host and port the client addressed: `Host`, or a trusted proxy's `X-Forwarded-Host`. */
  readonly host: string;
  /** The client's address: the socket's, or the one a trusted proxy's `X-Forwarded-For` names. */
  readonly ip?: string | undefined;
}

/** What {@link frameworkRequestOptions} adds to the framework's view: the options that depend on the call. */
export interface FrameworkRequestExtras {
  /** The prefix the framework stripped from `req.url` (Express `req.baseUrl`). Default: none. */
  readonly mountPath?: string;
  /** See {@link ToWebRequestOptions.ignoreBody}. */
  readonly ignoreBody?: boolean;
  /** See {@link ToWebRequestOptions.body}. */
  readonly body?: PreParsedBody;
  /** See {@link ToWebRequestOptions.response}. */
  readonly response?: ServerResponse;
}

/**
 * The bridge options ({@link ToWebRequestOptions}) for `request` as its framework sees it: the
 * public origin from `protocol` and `host`, computed when the URL is first needed (a bearer check
 * never needs it); the mount path, the prefix the framework stripped from `req.url` (none where
 * the framework keeps the full URL, as Fastify does); and the client address from `ip`, which the
 * bridge reads as it builds the request, before the body (a client that resets the connection has
 * no address later). `X-Forwarded-*` is never read here: only the framework decides whom to trust.
 *
 * Always one object of one shape, never spread into another: a copy made with `{ ...options, x }`
 * left the bridge reading its options from an object V8 could not optimise, which cost ~3 µs per
 * request on Fastify, a sixth of its bare route (bench/RESULTS.md, run K).
 */
export function frameworkRequestOptions(
  request: ProxyAwareRequest,
  extras: FrameworkRequestExtras = {},
): ToWebRequestOptions {
  let origin: string | undefined;
  return {
    origin: () => (origin ??= `${request.protocol}://${request.host}`),
    mountPath: extras.mountPath ?? '',
    clientAddress: () => request.ip,
    ignoreBody: extras.ignoreBody ?? false,
    body: extras.body,
    response: extras.response,
  };
}

/**
 * The request a framework adapter's `requireAuth` authenticates: `toWebRequest(req,
 * frameworkRequestOptions(request, { mountPath, ignoreBody: true }))`, without the options object.
 * Headers only, no body and no signal; the public URL (and with it `mountPath`, which may be a
 * function) and the client address are worked out only if something reads them, which the bearer
 * check never does. So the bridge's part of a bearer-protected GET is this request and its
 * headers view, two objects (bench/RESULTS.md, run Q).
 */
export function frameworkHeaderRequest(
  req: IncomingMessage,
  request: ProxyAwareRequest,
  mountPath: string | (() => string) = '',
): Request {
  return headerOnlyRequest(
    req,
    () => `${request.protocol}://${request.host}`,
    mountPath,
    () => request.ip,
  );
}
