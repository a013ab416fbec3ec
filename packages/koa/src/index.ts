/**
 * `@gatehousejs/koa`: mounts a Gatehouse instance in a Koa (2 or 3) app, and protects the host's own
 * routes. It only translates between Koa and Web `Request`/`Response`, through the shared Node
 * bridge of `@gatehousejs/core/node`.
 * @packageDocumentation
 */

import {
  type Answer,
  type Authenticator,
  answerOf,
  checkMountPath,
  type Servable,
  withAuthentication,
} from '@gatehousejs/core/adapter';
import {
  frameworkHeaderRequest,
  frameworkRequestOptions,
  readGatehouseRequest,
  sendWebResponse,
  type ToWebRequestOptions,
  toGatehouseRequest,
  toWebRequest,
  webRequestUrl,
} from '@gatehousejs/core/node';
import type { AuthenticateOptions, Caller, OperationsHandler } from '@gatehousejs/core/protect';
import type { Context, Middleware } from 'koa';

/** What {@link requireAuth} needs of an instance (a `Gatehouse`). */
export type { Authenticator };

/** `ctx.state` after {@link requireAuth}. */
export interface AuthState {
  /** The authenticated caller. */
  auth: Caller;
}

/**
 * The Web `Request` for a Koa context: the public URL from `ctx.protocol` and `ctx.host` (which
 * honour `app.proxy`; `X-Forwarded-*` is never read here), the prefix a `koa-mount` stripped put
 * back (see `mountPathOf`), the client address from `ctx.ip`, and the body streamed, or
 * re-encoded when a body parser already consumed it (`ctx.request.rawBody`, kept by
 * `@koa/bodyparser`, is preferred).
 */
export function toRequest(ctx: Context, extra: Pick<ToWebRequestOptions, 'ignoreBody'> = {}): Request {
  return toWebRequest(ctx.req, requestOptions(ctx, extra.ignoreBody));
}

/** The bridge's options for a Koa context (see {@link toRequest}). */
function requestOptions(ctx: Context, ignoreBody = false): ToWebRequestOptions {
  const request = ctx.request as { body?: unknown; rawBody?: string | Uint8Array };
  return frameworkRequestOptions(ctx, {
    mountPath: mountPathOf(ctx),
    ignoreBody,
    body: { value: request.body, raw: request.rawBody },
    response: ctx.res,
  });
}

/**
 * The prefix mounting middleware stripped from the path before this one, so that the instance
 * routes on the path the client asked for. Koa keeps no `baseUrl`; `koa-mount` records the prefix
 * it strips in `ctx.mountPath` (only the innermost one when mounts are nested, and it stays set
 * after the request has left the mount, whose path is then restored). So, comparing paths (a
 * rewritten query changes nothing):
 * - no `ctx.mountPath`, or the path is the original one: no mount is active, and a `ctx.url` that
 *   middleware rewrote is routed as rewritten;
 * - the original path is what precedes the current one plus the current one, and that prefix ends
 *   with `ctx.mountPath`: that whole prefix (one mount, or several nested);
 * - the current path still starts with `ctx.mountPath`: the request has left the mount (which put
 *   its path back) and was rewritten since: none;
 * - otherwise middleware rewrote the path before or inside the mount: `ctx.mountPath`.
 * Left ambiguous: a rewrite that strips a prefix ending like the mount's own (`/x/demo/y` →
 * `/demo/y`, then `koa-mount('/demo')`) reads as two nested mounts.
 */
function mountPathOf(ctx: Context): string {
  const mounted = (ctx as { mountPath?: unknown }).mountPath;
  if (typeof mounted !== 'string' || mounted === '' || mounted === '/') return '';
  const query = ctx.originalUrl.indexOf('?');
  const original = query < 0 ? ctx.originalUrl : ctx.originalUrl.slice(0, query);
  const current = ctx.path;
  if (original === current) return '';
  if (original.endsWith(current)) {
    const stripped = original.slice(0, original.length - current.length);
    if (stripped.endsWith(mounted)) return stripped;
  }
  const prefix = mounted.endsWith('/') ? mounted : `${mounted}/`;
  if (current === mounted || current.startsWith(prefix)) return '';
  return mounted;
}

/** Hands the answer to Node directly: Koa must not write a response of its own. */
async function respond(ctx: Context, response: Answer): Promise<void> {
  ctx.respond = false;
  await sendWebResponse(ctx.res, response);
}

/**
 * Middleware answering every route of `instance`; any other request goes on to `next`. Mount it
 * anywhere (`app.use(gatehouse(instance))`, or under `koa-mount`): the instance routes on the full
 * path the client requested.
 */
export function gatehouse(instance: Servable): Middleware {
  return async (ctx, next) => {
    const options = requestOptions(ctx);
    if (options.mountPath) checkMountPath(instance, options.mountPath);
    if (!instance.handles(webRequestUrl(ctx.req, options))) return next();
    // Only now is the body touched: a small one is read into memory (cheaper than a stream).
    const request = await readGatehouseRequest(ctx.req, options);
    await respond(ctx, await answerOf(instance, request));
  };
}

/** What {@link gatehouse} needs of an instance (`answer` is used when present). */
export type { Servable };

/**
 * Middleware running the host's protected REST operations (`defineOperations(instance, {...})`):
 * it answers the paths of the table and goes on to `next` for every other request, body untouched.
 */
export function operations(handler: OperationsHandler): Middleware {
  return async (ctx, next) => {
    // The bridge's light request: the table checks it, and an operation's handler gets the real
    // `Request` made from it (only then, so a refused call never builds one).
    const response = await handler(toGatehouseRequest(ctx.req, requestOptions(ctx)));
    if (!response) return next();
    await respond(ctx, response);
  };
}

/**
 * Middleware that lets a request through only with valid credentials of one of `options.schemes`
 * (and, for bearer tokens, every scope of `options.scope`), putting the caller on
 * `ctx.state.auth`. Otherwise it sends Gatehouse's ready 401/403 answer (RFC 6750
 * `WWW-Authenticate` included). It never reads the body.
 */
export function requireAuth(instance: Authenticator, options: AuthenticateOptions): Middleware<AuthState> {
  // A token verified before goes on to `next` in the same turn (see `withAuthentication`).
  return (ctx, next) =>
    withAuthentication(
      instance,
      // Headers only: the mount path is worked out only if the URL is read (a bearer check never does).
      frameworkHeaderRequest(ctx.req, ctx, () => mountPathOf(ctx as unknown as Context)),
      options,
      (result) => {
        if (!result.ok) return respond(ctx as unknown as Context, result.response);
        ctx.state.auth = result.caller;
        return next();
      },
    );
}
