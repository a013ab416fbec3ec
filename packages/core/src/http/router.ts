import type { Context } from '../context.js';
import { oauthError, type ProtocolError, UsageError } from '../errors.js';
import type { Answer } from './reply.js';

/*
 * The one router: the instance's routes (gatehouse.ts) and the host's protected operations
 * (protect/operations.ts) are both matched here, under the same rules, and answer an unknown
 * method with the same 405. A route's path is a pattern below a mount prefix; aliases put the same
 * route at other places, such as the RFC 8414 §3 well-known location in front of the mount.
 */

/** Answers one method of one instance route. `url` is the request URL, already parsed. */
export type Handler = (request: Request, ctx: Context, url: URL) => Promise<Answer>;

/** What the router needs of a route: where it is, and its handler per method. */
export interface RoutePattern<H = unknown> {
  /**
   * Path below the mount prefix: literal segments and `:name` parameters, which match one
   * non-empty segment and come out percent-decoded (`/oauth2/v1/token`, `/api/v1/tickets/:id`).
   */
  readonly path: string;
  /**
   * More paths of the same route, from the origin root: `{mount}` stands for the mount prefix,
   * e.g. `/.well-known/oauth-authorization-server{mount}` (RFC 8414 §3: the well-known segment is
   * inserted before the issuer's path). An alias identical to `path` under the mount is ignored.
   */
  readonly aliases?: readonly string[];
  /** Handlers by method (upper case). `HEAD` is answered by `GET` (see {@link unsafeGet}). */
  readonly methods: Readonly<Partial<Record<string, H>>>;
  /**
   * Its `GET` changes state (the authorization endpoint issues a code), so `HEAD`, which must be
   * safe (RFC 9110 §9.2.1), is not answered by it: 405.
   */
  readonly unsafeGet?: true;
}

/** One route of an instance. */
export interface Route extends RoutePattern<Handler> {
  readonly methods: Readonly<Partial<Record<'GET' | 'POST' | 'DELETE' | 'OPTIONS', Handler>>>;
  /**
   * Browsers may call it cross-origin (http/cors.ts): preflights are answered, and every response,
   * errors included, carries the CORS headers for an allowed origin. Never on `/authorize`.
   */
  readonly cors?: true;
}

/** A route that matched a path, with the values of its `:name` segments (the mount's included). */
export interface RouteMatch<R> {
  readonly route: R;
  readonly params: Readonly<Record<string, string>>;
}

interface CompiledPattern<R> {
  readonly route: R;
  /** Declaration order: where patterns overlap, the first declared wins. */
  readonly order: number;
  readonly segments: readonly string[];
}

const NO_PARAMS: Readonly<Record<string, string>> = Object.freeze({});

/**
 * Matches request paths to routes, below a mount prefix: the instance path (`/demo`, or `` at the
 * origin root), or a pattern such as `/:instance` for several instances under one origin, whose
 * value then comes out in the match's params. Paths are compared as sent: no decoding, no dot
 * segments resolved, no trailing slash ignored. Literal paths are one map lookup (the instance's
 * routes all are); patterns with parameters are tried in declaration order.
 */
export class Router<R extends RoutePattern> {
  readonly #literal = new Map<string, CompiledPattern<R>>();
  readonly #parameterized: CompiledPattern<R>[] = [];

  /** Throws `UsageError` (a `TypeError`) for a malformed pattern or two routes at one path. */
  constructor(mount: string, routes: readonly R[]) {
    const seen = new Map<string, R>();
    routes.forEach((route, order) => {
      const paths = [
        joinPath(mount, route.path),
        ...(route.aliases ?? []).map((a) => a.replace('{mount}', mount)),
      ];
      for (const path of paths) {
        if (!path.startsWith('/'))
          throw new UsageError(`Route path "${path}" does not start with "/".`, 'ERR_DUPLICATE_ROUTE');
        const segments = path.split('/').slice(1);
        // Two patterns differing only in parameter names match the same paths.
        const shape = segments.map((s) => (s.startsWith(':') ? ':' : s)).join('/');
        const existing = seen.get(shape);
        if (existing === route) continue;
        if (existing) throw new UsageError(`Duplicate route ${path}`, 'ERR_DUPLICATE_ROUTE');
        seen.set(shape, route);
        const compiled = { route, order, segments };
        if (segments.some((s) => s.startsWith(':'))) this.#parameterized.push(compiled);
        else this.#literal.set(path, compiled);
      }
    });
  }

  /**
   * Whether some route lies at `prefix` or below it (`/demo` reaches `/demo/oauth2/v1/token`), a
   * `:name` segment standing for any segment: a mount at `prefix` can reach a route.
   */
  reaches(prefix: string): boolean {
    const wanted = prefix.split('/').slice(1);
    const under = (segments: readonly string[]) =>
      segments.length >= wanted.length &&
      wanted.every((segment, i) => segments[i] === segment || segments[i]!.startsWith(':'));
    for (const path of this.#literal.keys()) if (under(path.split('/').slice(1))) return true;
    return this.#parameterized.some(({ segments }) => under(segments));
  }

  /** The route at `pathname` (a URL's `pathname`, still percent-encoded), or `undefined`. */
  match(pathname: string): RouteMatch<R> | undefined {
    const literal = this.#literal.get(pathname);
    if (this.#parameterized.length === 0) return literal && { route: literal.route, params: NO_PARAMS };
    const before = literal?.order ?? Number.POSITIVE_INFINITY;
    let segments: string[] | undefined;
    for (const pattern of this.#parameterized) {
      if (pattern.order >= before) break;
      segments ??= pathname.split('/').slice(1);
      const params = matchSegments(pattern.segments, segments);
      if (params) return { route: pattern.route, params };
    }
    return literal && { route: literal.route, params: NO_PARAMS };
  }
}

/** `mount` + `path`, where `/` below a mount is the mount itself. */
function joinPath(mount: string, path: string): string {
  if (mount === '') return path;
  return path === '/' ? mount : mount + path;
}

function matchSegments(
  pattern: readonly string[],
  actual: readonly string[],
): Record<string, string> | undefined {
  if (pattern.length !== actual.length) return undefined;
  const params: Record<string, string> = {};
  for (let i = 0; i < pattern.length; i++) {
    const expected = pattern[i]!;
    const segment = actual[i]!;
    if (!expected.startsWith(':')) {
      if (expected !== segment) return undefined;
      continue;
    }
    if (segment === '') return undefined;
    try {
      params[expected.slice(1)] = decodeURIComponent(segment);
    } catch {
      return undefined; // malformed percent-encoding names no resource
    }
  }
  return params;
}

/** The handler a route has for a method, and whether it answers a `HEAD` (without the body). */
export interface MethodHandler<H> {
  readonly handler: H;
  readonly head: boolean;
}

/**
 * The route's handler for `method`; `HEAD` takes the `GET` handler unless the route's `GET` is
 * unsafe. Throws the one 405 (`method_not_allowed` with `Allow`, RFC 9110 §15.5.6) otherwise.
 */
export function methodHandler<H>(route: RoutePattern<H>, method: string): MethodHandler<H> {
  const head = method === 'HEAD' && !route.unsafeGet;
  const name = method === 'HEAD' ? (head ? 'GET' : undefined) : method;
  const handler = name !== undefined && Object.hasOwn(route.methods, name) ? route.methods[name] : undefined;
  if (handler === undefined) throw methodNotAllowed(allowedMethods(route));
  return { handler, head };
}

/** The methods a route answers: its own, plus `HEAD` when it has a safe `GET`. */
export function allowedMethods(route: RoutePattern): string[] {
  const allow = Object.keys(route.methods);
  if (route.methods.GET && !route.unsafeGet) allow.push('HEAD');
  return allow;
}

function methodNotAllowed(allow: readonly string[]): ProtocolError {
  return oauthError('method_not_allowed', `Use ${allow.join(', ')} on this endpoint.`, { allow });
}

/** The one 404: a path no route matches. */
export function notFound(): ProtocolError {
  return oauthError('not_found', 'No such endpoint.');
}
