/**
 * `@gatehousejs/hono`: mounts a Gatehouse instance in a Hono app and protects the host's own routes,
 * on every runtime Hono runs on (Node via `@hono/node-server`, Bun, Deno, workers): Hono already
 * speaks Web `Request`/`Response`, so this adapter passes them through.
 * @packageDocumentation
 */

import type { Gatehouse } from '@gatehousejs/core';
import { type Authenticator, setClientAddress, withAuthentication } from '@gatehousejs/core/adapter';
import type { AuthenticateOptions, Caller, OperationsHandler } from '@gatehousejs/core/protect';
import type { Context, Handler, MiddlewareHandler } from 'hono';

/** What {@link requireAuth} needs of an instance (a `Gatehouse`). */
export type { Authenticator };

/** Hono `Variables` after {@link requireAuth}: `c.get('auth')`. */
export interface AuthVariables {
  auth: Caller;
}

/** Options of {@link gatehouse}. */
export interface GatehouseMiddlewareOptions {
  /**
   * The client address, for the password rate limiter. Hono has no portable way to know it: on
   * Node pass `(c) => getConnInfo(c).remote.address` (`@hono/node-server/conninfo`), on other
   * runtimes their equivalent. Called once per request, before its body is touched. Default:
   * unknown (see `rateLimit` in the core's docs for how unknown addresses are limited).
   */
  readonly clientAddress?: (c: Context) => string | undefined;
}

/**
 * Middleware answering every route of `instance`; any other request goes on to `next`. Use it at
 * the root (`app.use(gatehouse(instance))`) or under the instance path
 * (`app.use('/demo/*', gatehouse(instance))`): Hono does not rewrite URLs, so the instance sees
 * the full URL the client requested.
 */
export function gatehouse(
  instance: Pick<Gatehouse, 'fetch' | 'handles'>,
  options: GatehouseMiddlewareOptions = {},
): MiddlewareHandler {
  return async (c, next) => {
    if (!instance.handles(c.req.url)) return next();
    // Read before anything is awaited: a client that reset the connection has no address later.
    const address = options.clientAddress?.(c);
    const request = await unreadRequest(c);
    setClientAddress(request, address);
    return instance.fetch(request);
  };
}

/**
 * The request with its body readable. When an earlier middleware read it through Hono
 * (`c.req.parseBody()`, `c.req.json()`, …), Hono keeps the bytes, and they are given back as they
 * came (form bodies stay byte-faithful, so repeated parameters are still detected).
 */
async function unreadRequest(c: Context): Promise<Request> {
  const raw = c.req.raw;
  if (!raw.bodyUsed) return raw;
  try {
    return new Request(raw, { body: await c.req.arrayBuffer() });
  } catch {
    return raw; // Read outside Hono's cache: core answers 400, not a 5xx.
  }
}

/**
 * Middleware running the host's protected REST operations (`defineOperations(instance, {...})`):
 * it answers the paths of the table and goes on to `next` for every other request.
 */
export function operations(
  handler: OperationsHandler,
  options: GatehouseMiddlewareOptions = {},
): MiddlewareHandler {
  return async (c, next) => {
    const address = options.clientAddress?.(c);
    const request = await unreadRequest(c);
    setClientAddress(request, address);
    const response = await handler(request);
    if (!response) return next();
    return response;
  };
}

/**
 * Middleware that lets a request through only with valid credentials of one of `options.schemes`
 * (and, for bearer tokens, every scope of `options.scope`), setting `c.get('auth')`. Otherwise it
 * answers with Gatehouse's ready 401/403 response (RFC 6750 `WWW-Authenticate` included). It never
 * reads the body.
 *
 * Given a `handler`, it returns that handler behind the same check instead of a middleware:
 * `app.get('/api/me', requireAuth(gatehouse, { schemes: ['bearer'] }, (c) => c.json(c.get('auth'))))`.
 * Same answers, cheaper: Hono runs a route of one handler directly, while a middleware in front of it
 * makes Hono compose a chain with a promise per step (about a fifth of a bare Hono request).
 */
export function requireAuth(
  instance: Authenticator,
  options: AuthenticateOptions,
): MiddlewareHandler<{ Variables: AuthVariables }>;
export function requireAuth(
  instance: Authenticator,
  options: AuthenticateOptions,
  handler: Handler<{ Variables: AuthVariables }>,
): Handler<{ Variables: AuthVariables }>;
export function requireAuth(
  instance: Authenticator,
  options: AuthenticateOptions,
  handler?: Handler<{ Variables: AuthVariables }>,
): MiddlewareHandler<{ Variables: AuthVariables }> | Handler<{ Variables: AuthVariables }> {
  if (handler) {
    return (c, next) =>
      // A token verified before runs the handler without waiting (see `withAuthentication`).
      withAuthentication(instance, c.req.raw, options, (result) => {
        if (!result.ok) return result.response;
        c.set('auth', result.caller);
        return handler(c, next);
      });
  }
  return (c, next) => {
    // A token verified before goes on to `next` without waiting (see `withAuthentication`).
    const outcome = withAuthentication(instance, c.req.raw, options, (result) => {
      if (!result.ok) return result.response;
      c.set('auth', result.caller);
      return next();
    });
    return Promise.resolve(outcome);
  };
}
