import { authApiRoutes } from './auth-api/routes.js';
import type { Awaitable } from './awaitable.js';
import type { Context } from './context.js';
import { errorResponse, ProtocolError } from './errors.js';
import { isPreflight, preflightResponse, withCors } from './http/cors.js';
import { type Answer, toResponse } from './http/reply.js';
import { type Route, Router } from './http/router.js';
import { authorizationServerMetadata } from './oauth2/metadata.js';
import { oauth2Routes } from './oauth2/routes.js';
import type { GatehouseOptions } from './options.js';
import { acceptedSchemes, authenticateRequest } from './protect/authenticate.js';
import type { AuthenticateOptions, AuthenticationResult, Caller } from './protect/types.js';
import { resolveOptions, toContext } from './resolve-options.js';
import { sessionRoutes } from './session/routes.js';
import { importKeySet } from './tokens/keys.js';

/** One Gatehouse instance (one issuer). */
export interface Gatehouse {
  /** `{base_url}`, e.g. `http://localhost:3000/demo`. */
  readonly issuer: string;
  /** The instance path, e.g. `/demo` (empty for an issuer at the origin root). */
  readonly basePath: string;
  /**
   * Answers every Gatehouse route below {@link basePath}, plus the RFC 8414 metadata at
   * `/.well-known/oauth-authorization-server{basePath}`. Unknown paths get 404 JSON. Never rejects:
   * bad input gets a 4xx, a failing store a 503, a bug a bare 500.
   */
  fetch(request: Request): Promise<Response>;
  /**
   * {@link fetch} for server adapters: the same answers, but one whose body Gatehouse built as text
   * (JSON, an HTML page) comes back as a {@link Reply} (status, headers, text) that a server writes
   * directly, without a `Response` and its body stream; anything else comes back as a `Response`.
   * `toResponse` turns a reply into a `Response`; `sendWebResponse` of `@gatehouse/core/node` sends
   * either.
   */
  answer(request: Request): Promise<Answer>;
  /** Whether {@link fetch} has a route for this URL (adapters use it to fall through to the host). */
  handles(url: URL | string): boolean;
  /** Resolves once keys are imported; rejects with the configuration problem if they cannot be. */
  ready(): Promise<void>;
  /** The RFC 8414 metadata document. */
  metadata(): Record<string, unknown>;
  /**
   * Who calls one of the host's own REST operations, by the schemes it accepts (seed §5): a bearer
   * access token (either family, checked against `scope`) and/or the session cookie (counted only
   * from the instance's origin or an allowed origin; cross-site state-changing requests get 403).
   * Resolves to the caller, or to the ready 400/401/403 (or 503) response to send as is; never
   * rejects except with `TypeError` for options naming no or unknown schemes. See `defineOperations`
   * for a whole route table with CORS.
   */
  authenticate(request: Request, options: AuthenticateOptions): Promise<AuthenticationResult>;
  /**
   * {@link authenticate} for server adapters: the same result, returned as it is when it is known
   * at once, else as a promise. A bearer token verified before, checked against the memory grant
   * store, is known at once: the adapter can then let the request through without waiting a turn
   * of the event loop (see `withAuthentication`). Throws `TypeError` for options naming no or
   * unknown schemes.
   */
  authenticateNow(
    request: Request,
    options: AuthenticateOptions,
  ): AuthenticationResult | Promise<AuthenticationResult>;
  /**
   * Adds the CORS headers for the request's `Origin` to a response of the host's own API:
   * `Vary: Origin` always, and for an allowed origin (the issuer's, `cors.allowedOrigins`, or a
   * client's `allowedOrigins`) its exact echo with `Access-Control-Allow-Credentials: true`.
   */
  cors(request: Request, response: Response): Promise<Response>;
  /**
   * The answer to a CORS preflight (`OPTIONS` with `Access-Control-Request-Method`) for an operation
   * accepting `methods`, or `undefined` when the request is no preflight.
   */
  preflight(request: Request, methods: readonly string[]): Promise<Response | undefined>;
}

/** Creates an instance. Throws `ConfigurationError` for unusable options. */
export function createGatehouse(options: GatehouseOptions): Gatehouse {
  const resolved = resolveOptions(options);
  const contextPromise: Promise<Context> = importKeySet(options.keys, options.algorithm ?? 'ES256').then(
    (keys) => toContext(resolved, keys),
  );
  contextPromise.catch((error) => resolved.logger.error('gatehouse: keys could not be imported', error));
  // Once the keys are in, requests take the context without an await (a tick on every request).
  let readyContext: Context | undefined;
  contextPromise
    .then((ctx) => {
      readyContext = ctx;
    })
    .catch(() => {});
  const routes: Route[] = [...oauth2Routes(resolved), ...authApiRoutes(resolved), ...sessionRoutes(resolved)];
  const router = new Router(routes);
  const rootMetadataPath = `/.well-known/oauth-authorization-server${resolved.basePath}`;

  const relativePath = (pathname: string): string | undefined => {
    if (resolved.basePath === '') return pathname;
    if (pathname === resolved.basePath) return '/';
    return pathname.startsWith(`${resolved.basePath}/`)
      ? pathname.slice(resolved.basePath.length)
      : undefined;
  };

  const route = async (request: Request): Promise<Answer> => {
    let url: URL;
    try {
      url = new URL(request.url);
    } catch {
      throw new ProtocolError('invalid_request', 'The request URL is not valid.');
    }
    const ctx = readyContext ?? (await contextPromise);
    if (url.pathname === rootMetadataPath && resolved.basePath !== '') {
      return router.dispatch('/.well-known/oauth-authorization-server', request, ctx, url);
    }
    const path = relativePath(url.pathname);
    if (path === undefined) throw new ProtocolError('not_found', 'No such endpoint.', { status: 404 });
    return router.dispatch(path, request, ctx, url);
  };

  /** Never rejects: anything thrown becomes its error answer. */
  const answer = async (request: Request): Promise<Answer> => {
    try {
      return await route(request);
    } catch (error) {
      return errorResponse(error, resolved.logger);
    }
  };

  const authenticated = (caller: Caller): AuthenticationResult => ({ ok: true, caller });
  const refused = (error: unknown): AuthenticationResult => ({
    ok: false,
    response: errorResponse(error, resolved.logger),
  });
  const authenticateNow = (
    request: Request,
    options: AuthenticateOptions,
  ): AuthenticationResult | Promise<AuthenticationResult> => {
    acceptedSchemes(options); // a programming error throws rather than becoming a 500 response
    const ctx = readyContext;
    if (ctx === undefined) return contextPromise.then(() => authenticateNow(request, options), refused);
    let caller: Awaitable<Caller>;
    try {
      caller = authenticateRequest(ctx, request, options);
    } catch (error) {
      return refused(error);
    }
    return caller instanceof Promise ? caller.then(authenticated, refused) : authenticated(caller);
  };

  return {
    issuer: resolved.issuer,
    basePath: resolved.basePath,
    // Methods never use `this`: hosts pass them around unbound (`export const GET = g.fetch`).
    async fetch(request) {
      return toResponse(await answer(request));
    },
    answer,
    async authenticate(request, options) {
      return authenticateNow(request, options);
    },
    authenticateNow,
    async cors(request, response) {
      try {
        return await withCors(await contextPromise, request, response);
      } catch (error) {
        return errorResponse(error, resolved.logger);
      }
    },
    async preflight(request, methods) {
      if (!isPreflight(request)) return undefined;
      try {
        return await preflightResponse(await contextPromise, request, methods);
      } catch (error) {
        return errorResponse(error, resolved.logger);
      }
    },
    handles(input) {
      const url = typeof input === 'string' ? new URL(input) : input;
      if (url.pathname === rootMetadataPath) return true;
      const path = relativePath(url.pathname);
      return path !== undefined && router.has(path);
    },
    async ready() {
      await contextPromise;
    },
    metadata() {
      return authorizationServerMetadata(resolved);
    },
  };
}
