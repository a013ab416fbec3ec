/**
 * `@gatehousejs/fastify`: mounts a Gatehouse instance in a Fastify (5 or 4) app, and protects the
 * host's own routes. It only translates between Fastify and Web `Request`/`Response`, through the
 * shared Node bridge of `@gatehousejs/core/node`.
 * @packageDocumentation
 */

import {
  type Answer,
  type Authenticator,
  answerOf,
  type Servable,
  withAuthentication,
} from '@gatehousejs/core/adapter';
import {
  frameworkHeaderRequest,
  frameworkRequestOptions,
  type ProxyAwareRequest,
  readGatehouseRequest,
  sendWebResponse,
  toWebRequest,
  webRequestUrl,
} from '@gatehousejs/core/node';
import type { AuthenticateOptions, Caller, OperationsHandler } from '@gatehousejs/core/protect';
import type {
  FastifyInstance,
  FastifyPluginAsync,
  FastifyReply,
  FastifyRequest,
  preHandlerHookHandler,
} from 'fastify';
import fp from 'fastify-plugin';

/** What {@link requireAuth} needs of an instance (a `Gatehouse`). */
export type { Authenticator };

declare module 'fastify' {
  interface FastifyRequest {
    /**
     * The caller, set by `requireAuth` of `@gatehousejs/fastify`; `null` on a request it did not
     * let through (declared with `decorateRequest` by the `gatehouse` plugin).
     */
    auth: Caller | null;
  }
}

/** What {@link gatehouse} serves: an instance, or any object answering like one. */
export type MountedInstance = Servable & {
  /** Where its routes live (`Gatehouse.basePath`, e.g. `/demo`; empty for an issuer at the root). */
  readonly basePath?: string;
};

/** Options of the {@link gatehouse} plugin. */
export interface GatehousePluginOptions {
  /** The instance whose routes to serve (`createGatehouse(...)`). */
  readonly instance: MountedInstance;
  /**
   * The host's protected REST operations under the instance path (`defineOperations(instance,
   * {...})`), answered on the same routes after the instance's own.
   */
  readonly operations?: OperationsHandler;
  /**
   * The path the instance's routes live under, when `instance` has no `basePath` (a test double,
   * a host of several instances). Default: `instance.basePath`.
   */
  readonly path?: string;
}

/**
 * The Fastify plugin serving an instance: register it once per instance
 * (`app.register(gatehouse, { instance })`). Its routes are those under the instance path
 * (`{basePath}/*`, every method) plus, at the root, the RFC 8414 metadata at
 * `/.well-known/oauth-authorization-server{basePath}`; a path the instance does not serve goes to
 * the app's not-found handler, and the app's own routes under that path win (Fastify prefers static
 * routes to wildcards). Fastify keeps the full URL, so no mount path is involved: registered inside a
 * prefixed context, the routes lie under that prefix, which must then begin the instance path.
 *
 * Gatehouse reads its own request bodies: its routes have their own content-type parser, which
 * leaves the body to it, so a form is never re-encoded and the app's parsers (`@fastify/formbody`,
 * JSON) stay as they are for every other route. Public origin and client address come from
 * `request.protocol`, `request.host` (Fastify 4: `hostname`) and `request.ip`, i.e. the app's
 * `trustProxy`. It also declares `request.auth` (`decorateRequest`) for {@link requireAuth}.
 */
export const gatehouse: FastifyPluginAsync<GatehousePluginOptions> = fp(serveInstance, {
  name: '@gatehousejs/fastify',
  fastify: '4.x || 5.x',
});

async function serveInstance(fastify: FastifyInstance, options: GatehousePluginOptions): Promise<void> {
  if (!fastify.hasRequestDecorator('auth')) fastify.decorateRequest('auth', null);
  const { instance, operations } = options;
  const basePath = options.path ?? instance.basePath ?? '';
  // Routes registered here get the prefix of the context the plugin was registered in.
  const prefix = fastify.prefix;
  if (basePath !== prefix && !basePath.startsWith(`${prefix}/`)) {
    throw new Error(
      `@gatehousejs/fastify: the instance path "${basePath}" is not under this context's prefix "${prefix}".`,
    );
  }
  const answer = (request: FastifyRequest, reply: FastifyReply) =>
    answerRoute(instance, operations, request, reply);
  await fastify.register(async (scope) => {
    // The body stays in the stream for the bridge (an own parser for every type, including none).
    scope.removeAllContentTypeParsers();
    scope.addContentTypeParser('*', (_request, _payload, done) => done(null));
    // `all` includes HEAD: no second HEAD route is derived from GET.
    const routeOptions = { exposeHeadRoute: false };
    scope.all(`${basePath.slice(prefix.length)}/*`, routeOptions, answer);
    if (basePath !== '' && prefix === '') {
      scope.all(`/.well-known/oauth-authorization-server${basePath}`, routeOptions, answer);
    }
  });
}

/** Answers one request on the plugin's routes: the instance's, else the operations', else 404. */
async function answerRoute(
  instance: MountedInstance,
  operations: OperationsHandler | undefined,
  request: FastifyRequest,
  reply: FastifyReply,
): Promise<FastifyReply> {
  const options = frameworkRequestOptions(proxyView(request), { response: reply.raw });
  if (instance.handles(webRequestUrl(request.raw, options))) {
    // Only now is the body touched: a small one is read into memory (cheaper than a stream).
    const webRequest = await readGatehouseRequest(request.raw, options);
    await send(reply, await answerOf(instance, webRequest));
    return reply;
  }
  if (operations) {
    // An operation's handler gets the real `Request` made from the bridge's light one.
    const response = await operations(await readGatehouseRequest(request.raw, options));
    if (response) {
      await send(reply, response);
      return reply;
    }
  }
  reply.callNotFound();
  return reply;
}

/**
 * Writes Gatehouse's answer through the Node bridge (one write for a text answer, streaming with
 * back-pressure otherwise), taking Fastify's reply out of the way (`hijack`). Headers the app set on
 * the reply before (hooks, plugins) go out too; the answer's win where both set one, except
 * `Set-Cookie`, where both are kept.
 */
function send(reply: FastifyReply, answer: Answer): Promise<void> {
  for (const [name, value] of Object.entries(reply.getHeaders())) {
    if (value !== undefined) reply.raw.setHeader(name, value);
  }
  reply.hijack();
  return sendWebResponse(reply.raw, answer);
}

/**
 * The request as Fastify sees it through `trustProxy`. Fastify 5's request has `protocol`, `host`
 * (with the port) and `ip`; Fastify 4's `hostname` is what 5 calls `host`.
 */
function proxyView(request: FastifyRequest): ProxyAwareRequest {
  if ('host' in request) return request;
  const v4 = request as unknown as {
    readonly protocol: string;
    readonly hostname: string;
    readonly ip: string;
  };
  return {
    get protocol() {
      return v4.protocol;
    },
    get host() {
      return v4.hostname;
    },
    get ip() {
      return v4.ip;
    },
  };
}

/**
 * The Web `Request` for a Fastify request, for custom wiring (e.g. a `defineOperations` table on a
 * route of your own): the public URL and client address as the `gatehouse` plugin builds them, and
 * the body re-encoded from what Fastify's parser made of it (`request.rawBody` is used when a plugin
 * such as `fastify-raw-body` kept the exact bytes), or streamed when no parser ran.
 */
export function toRequest(request: FastifyRequest, reply?: FastifyReply): Request {
  return toWebRequest(
    request.raw,
    frameworkRequestOptions(proxyView(request), {
      body: { value: request.body, raw: (request as { rawBody?: Uint8Array | string }).rawBody },
      response: reply?.raw,
    }),
  );
}

/**
 * A `preHandler` hook that lets a request through only with valid credentials of one of
 * `options.schemes` (and, for bearer tokens, every scope of `options.scope`), putting the caller on
 * `request.auth`. Otherwise it sends Gatehouse's ready 401/403 answer (RFC 6750
 * `WWW-Authenticate` included). It reads headers only. A token verified before lets the request
 * through in the same turn of the event loop (see `withAuthentication`):
 * `app.get('/me', { preHandler: requireAuth(instance, { schemes: ['bearer'] }) }, handler)`.
 */
export function requireAuth(instance: Authenticator, options: AuthenticateOptions): preHandlerHookHandler {
  return (request, reply, done) => {
    // Headers only; Fastify keeps the full URL (no mount path to put back).
    const webRequest = frameworkHeaderRequest(request.raw, proxyView(request));
    let pending: Promise<unknown> | undefined;
    try {
      pending = withAuthentication(instance, webRequest, options, (result) => {
        if (!result.ok) return send(reply, result.response);
        request.auth = result.caller;
        done();
        return undefined;
      });
    } catch (error) {
      // Options naming no or unknown schemes: a programming error, for Fastify's error handler.
      done(error as Error);
      return;
    }
    pending?.catch((error: unknown) => done(error as Error));
  };
}

/** What {@link gatehouse} needs of an instance (`answer` is used when present). */
export type { Servable };
