/**
 * `@gatehousejs/next`: Next.js App Router route handlers for a Gatehouse instance, and a wrapper that
 * protects the host's own route handlers. Route handlers already speak Web `Request`/`Response`,
 * so this runs on the Node and the Edge runtime alike (no Node built-ins).
 * @packageDocumentation
 */

import type { Gatehouse } from '@gatehousejs/core';
import { type Authenticator, notFoundResponse, setClientAddress } from '@gatehousejs/core/adapter';
import type { AuthenticateOptions, Caller, OperationsHandler } from '@gatehousejs/core/protect';

/** What {@link withAuth} needs of an instance (a `Gatehouse`). */
export type { Authenticator };

/** A route handler: `(request, { params })` → `Response`. */
export type RouteHandler<C = unknown> = (request: Request, context: C) => Response | Promise<Response>;

/** Options of {@link handlers}. */
export interface HandlersOptions {
  /**
   * The client address, for the password rate limiter. Next.js exposes none it vouches for; behind
   * a proxy you trust, read its header here (e.g. the last `X-Forwarded-For` entry it appends).
   * Called once per request, first thing. Default: unknown (see `rateLimit` in the core's docs for
   * how unknown addresses are limited).
   */
  readonly clientAddress?: (request: Request) => string | undefined;
}

/** The methods of a Gatehouse catch-all route. */
export interface GatehouseRouteHandlers {
  readonly GET: RouteHandler;
  readonly HEAD: RouteHandler;
  readonly POST: RouteHandler;
  readonly OPTIONS: RouteHandler;
}

/** An instance, or a function giving it (for instances created asynchronously, on first use). */
export type InstanceSource =
  | Pick<Gatehouse, 'fetch'>
  | (() => Pick<Gatehouse, 'fetch'> | Promise<Pick<Gatehouse, 'fetch'>>);

/**
 * Route handlers answering every route of `instance`, for a catch-all route at the instance path:
 * `export const { GET, HEAD, POST, OPTIONS } = handlers(gatehouse)` in
 * `app/demo/[...gatehouse]/route.ts` for an issuer `https://host/demo`. Pass a function instead of
 * the instance to create it lazily, at the first request rather than at build time.
 */
export function handlers(instance: InstanceSource, options: HandlersOptions = {}): GatehouseRouteHandlers {
  const handle: RouteHandler = async (request) => {
    setClientAddress(request, options.clientAddress?.(request));
    return (typeof instance === 'function' ? await instance() : instance).fetch(request);
  };
  return { GET: handle, HEAD: handle, POST: handle, OPTIONS: handle };
}

/** The methods of a route serving protected REST operations. */
export interface OperationRouteHandlers extends GatehouseRouteHandlers {
  readonly PUT: RouteHandler;
  readonly PATCH: RouteHandler;
  readonly DELETE: RouteHandler;
}

/**
 * Route handlers running the host's protected REST operations (`defineOperations(instance, {...})`),
 * e.g. `export const { POST, OPTIONS } = operations(api)` in `app/demo/api/v1/tickets/route.ts`.
 * A path the table does not declare gets the core's 404 JSON answer.
 */
export function operations(
  handler: OperationsHandler,
  options: HandlersOptions = {},
): OperationRouteHandlers {
  const handle: RouteHandler = async (request) => {
    setClientAddress(request, options.clientAddress?.(request));
    return (await handler(request)) ?? notFoundResponse();
  };
  return {
    GET: handle,
    HEAD: handle,
    POST: handle,
    PUT: handle,
    PATCH: handle,
    DELETE: handle,
    OPTIONS: handle,
  };
}

/**
 * Wraps a route handler so it runs only with valid credentials of one of `options.schemes` (and,
 * for bearer tokens, every scope of `options.scope`); the caller is passed as `context.auth`.
 * Otherwise Gatehouse's ready 401/403 response (RFC 6750 `WWW-Authenticate` included) is returned.
 * Like {@link handlers}, it takes the instance or a function giving it.
 */
export function withAuth<C = unknown>(
  instance: Authenticator | (() => Authenticator | Promise<Authenticator>),
  handler: (request: Request, context: C & { auth: Caller }) => Response | Promise<Response>,
  options: AuthenticateOptions,
): RouteHandler<C> {
  return async (request, context) => {
    const authenticator = typeof instance === 'function' ? await instance() : instance;
    const result = await authenticator.authenticate(request, options);
    if (!result.ok) return result.response;
    return handler(request, { ...context, auth: result.caller });
  };
}
