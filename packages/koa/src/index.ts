/**
 * `@gatehouse/koa`: mounts a Gatehouse instance in a Koa (2 or 3) app, and protects the host's own
 * routes. It only translates between Koa and Web `Request`/`Response`, through the shared Node
 * bridge of `@gatehouse/core/node`.
 * @packageDocumentation
 */
import {
  type Answer,
  type AuthenticateOptions,
  type Authenticator,
  type Caller,
  type OperationsHandler,
  withAuthentication,
} from '@gatehouse/core';
import {
  answerOf,
  readWebRequest,
  type Servable,
  sendWebResponse,
  type ToWebRequestOptions,
  toWebRequest,
  webRequestUrl,
} from '@gatehouse/core/node';
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
 * honour `app.proxy`; `X-Forwarded-*` is never read here), a prefix stripped by a mounting
 * middleware (`koa-mount`) put back from `ctx.originalUrl`, the client address from `ctx.ip`, and
 * the body streamed, or re-encoded when a body parser already consumed it (`ctx.request.rawBody`,
 * kept by `@koa/bodyparser`, is preferred).
 */
export function toRequest(ctx: Context, extra: Pick<ToWebRequestOptions, 'ignoreBody'> = {}): Request {
  return toWebRequest(ctx.req, { ...requestOptions(ctx), ...extra });
}

/** The bridge's options for a Koa context (see {@link toRequest}). */
function requestOptions(ctx: Context): ToWebRequestOptions {
  const { originalUrl, url } = ctx;
  const mountPath = originalUrl !== url && originalUrl.endsWith(url) ? originalUrl.slice(0, -url.length) : '';
  const request = ctx.request as { body?: unknown; rawBody?: string | Uint8Array };
  let origin: string | undefined;
  return {
    // Looked up when first needed (a bearer check needs neither the URL nor the address).
    origin: () => (origin ??= `${ctx.protocol}://${ctx.host}`),
    mountPath,
    body: { value: request.body, raw: request.rawBody },
    clientAddress: () => ctx.ip,
    response: ctx.res,
  };
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
    if (!instance.handles(webRequestUrl(ctx.req, options))) return next();
    // Only now is the body touched: a small one is read into memory (cheaper than a stream).
    const request = await readWebRequest(ctx.req, options);
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
    const response = await handler(toRequest(ctx));
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
      toRequest(ctx as unknown as Context, { ignoreBody: true }),
      options,
      (result) => {
        if (!result.ok) return respond(ctx as unknown as Context, result.response);
        ctx.state.auth = result.caller;
        return next();
      },
    );
}
