import type { Context } from '../context.js';
import { errorResponse, ProtocolError } from '../errors.js';
import { isPreflight, preflightResponse, withCors } from './cors.js';
import { type Answer, withoutBody } from './reply.js';

/** Answers one method of one route. `url` is the request URL, already parsed. */
export type Handler = (request: Request, ctx: Context, url: URL) => Promise<Answer>;

/** One path (relative to the instance base path) and its methods. */
export interface Route {
  /** E.g. `/oauth2/v1/token`. */
  readonly path: string;
  readonly methods: Readonly<Partial<Record<'GET' | 'POST' | 'OPTIONS', Handler>>>;
  /**
   * Browsers may call it cross-origin (http/cors.ts): preflights are answered, and every response,
   * errors included, carries the CORS headers for an allowed origin. Never on `/authorize`.
   */
  readonly cors?: true;
  /**
   * Its `GET` changes state (the authorization endpoint issues a code), so `HEAD`, which must be
   * safe (RFC 9110 §9.2.1), is not answered by it: 405.
   */
  readonly unsafeGet?: true;
}

/**
 * Dispatches on exact path and method: unknown path → 404 JSON, known path with another method →
 * 405 with `Allow` (RFC 9110 §15.5.6). `HEAD` is answered by the `GET` handler without a body,
 * except on routes whose `GET` changes state.
 */
export class Router {
  readonly #routes = new Map<string, Route>();

  constructor(routes: readonly Route[]) {
    for (const route of routes) {
      if (this.#routes.has(route.path)) throw new Error(`Duplicate route ${route.path}`);
      this.#routes.set(route.path, route);
    }
  }

  has(path: string): boolean {
    return this.#routes.has(path);
  }

  async dispatch(path: string, request: Request, ctx: Context, url: URL): Promise<Answer> {
    const route = this.#routes.get(path);
    if (!route) throw new ProtocolError('not_found', 'No such endpoint.', { status: 404 });
    if (!route.cors) return this.#answer(route, request, ctx, url);
    if (!route.methods.OPTIONS && isPreflight(request)) {
      return preflightResponse(ctx, request, Object.keys(route.methods));
    }
    let response: Answer;
    try {
      response = await this.#answer(route, request, ctx, url);
    } catch (error) {
      // Converted here rather than in `fetch` so that a browser can read the error (e.g. invalid_grant).
      response = errorResponse(error, ctx.logger);
    }
    return withCors(ctx, request, response);
  }

  async #answer(route: Route, request: Request, ctx: Context, url: URL): Promise<Answer> {
    const method = request.method.toUpperCase();
    const head = method === 'HEAD' && !route.unsafeGet;
    const handler =
      method === 'HEAD'
        ? head
          ? route.methods.GET
          : undefined
        : route.methods[method as keyof Route['methods']];
    if (!handler) {
      const allow = Object.keys(route.methods);
      if (route.methods.GET && !route.unsafeGet) allow.push('HEAD');
      throw new ProtocolError('method_not_allowed', `Use ${allow.join(', ')} on this endpoint.`, {
        status: 405,
        headers: { Allow: allow.join(', ') },
      });
    }
    const response = await handler(request, ctx, url);
    return head ? withoutBody(response) : response;
  }
}
