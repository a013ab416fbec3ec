import { errorAnswer, UsageError } from '../errors.js';
import type { Gatehouse } from '../gatehouse.js';
import type { GatehouseHost } from '../host/gatehouse-host.js';
import { type HostInternals, hostInternalsOf } from '../host/host-internals.js';
import { isPreflight } from '../http/cors.js';
import { hostRequest } from '../http/host-request.js';
import { type Answer, toResponse, withoutBody } from '../http/reply.js';
import { methodHandler, type RoutePattern, Router } from '../http/router.js';
import { authenticationPlan } from './authenticate.js';
import { internalsOf } from './instance-internals.js';
import { type ProtectedResourceOptions, protectedResource } from './resource-metadata.js';
import type { AuthenticateOptions, Caller } from './types.js';

/** Methods an operation can be declared for. `HEAD` is answered by the `GET` operation. */
export type OperationMethod = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

/**
 * Answers an authenticated request. `params` holds the `:name` segments of the path, decoded.
 * `request` is a platform `Request` whatever the table was given (the Node adapters' light request
 * is turned into one only here, once its caller is authenticated).
 */
export type OperationHandler = (
  request: Request,
  caller: Caller,
  params: Readonly<Record<string, string>>,
) => Response | Promise<Response>;

/** One protected operation: the schemes (and scopes) it accepts, and its handler. */
export interface Operation extends AuthenticateOptions {
  readonly handler: OperationHandler;
}

/**
 * A route table: keys are `"<METHOD> <path>"`, the path relative to the instance base path
 * (`{base_url}`), e.g. `'POST /api/v1/tickets'` or `'GET /api/v1/tickets/:id'`.
 */
export type OperationTable = Readonly<Record<`${OperationMethod} /${string}`, Operation>>;

/** Options of {@link defineOperations}. */
export interface OperationsOptions {
  /**
   * The protected resource the table makes up (RFC 9728, RFC 8707), e.g. `{ resource:
   * 'https://example.com/demo/api/v1' }`: its metadata is served at
   * `/.well-known/oauth-protected-resource{path}` (with `scopes_supported` defaulting to every
   * scope the operations require), bearer tokens must name it in `aud`, and every 401/403 challenge
   * carries `resource_metadata`. Only for a single instance (a host's instances each have their
   * own resource identifiers). Default: none; tokens must then carry the instance's `audience`.
   */
  readonly resource?: ProtectedResourceOptions;
}

/** Answers a request when the table has its path, else `undefined` (so the host can fall through). */
export type OperationsHandler = (request: Request) => Promise<Response | undefined>;

/** The operations of one path pattern, as a route of the router. */
interface OperationRoute extends RoutePattern<Operation> {
  readonly methods: Record<string, Operation>;
}

const METHODS: ReadonlySet<string> = new Set(['GET', 'POST', 'PUT', 'PATCH', 'DELETE']);

/**
 * Protects a table of the host's REST operations, each declaring its schemes:
 *
 * ```ts
 * const api = defineOperations(gatehouse, {
 *   'POST /api/v1/tickets': { schemes: ['bearer', 'session'], handler: async (request, caller) => … },
 * });
 * const response = await api(request); // undefined: not one of these paths
 * ```
 *
 * For a matching path it answers CORS preflights, 405 (with `Allow`) for undeclared methods, the
 * ready 401/403 of `gatehouse.authenticate`, or the handler's response; every answer carries the
 * CORS headers (`gatehouse.cors`). A `ProtocolError` thrown by a handler becomes its JSON answer;
 * anything else a handler throws is logged with the instance's logger (the operation's method and
 * path pattern and the error; nothing of the request, which carries credentials) and answered 500
 * `server_error`, never with the error's text. Paths are matched by the instance's router below
 * its base path, segment by segment; the first declared pattern that matches wins. Throws
 * `UsageError` (a `TypeError`) at definition for malformed keys or schemes, or an instance not made by
 * `createGatehouse`.
 */
export function defineOperations(
  gatehouse: Gatehouse | GatehouseHost,
  table: OperationTable,
  options: OperationsOptions = {},
): OperationsHandler {
  const host = hostInternalsOf(gatehouse);
  if (host) {
    if (options.resource)
      throw new UsageError(
        'defineOperations: a resource is declared per instance, not for a whole host.',
        'ERR_INVALID_INSTANCE',
      );
    return hostedOperations(host, table);
  }
  const internals = internalsOf(gatehouse);
  if (!internals)
    throw new UsageError(
      'defineOperations: the instance was not made by createGatehouse.',
      'ERR_INVALID_INSTANCE',
    );
  const { authenticateNow, logger, cors } = internals;
  const routes = compile(table);
  const resource = options.resource && declareResource(gatehouse as Gatehouse, options.resource, routes);
  const router = new Router((gatehouse as Gatehouse).basePath, routes);

  const answerOperation = async (
    route: OperationRoute,
    params: Readonly<Record<string, string>>,
    request: Request,
  ): Promise<Answer> => {
    const { handler: operation, head } = methodHandler(route, request.method.toUpperCase());
    const result = await authenticateNow(request, operation);
    if (!result.ok) return result.response;
    // The host's handler gets a platform `Request`; the check above read the light one, if any.
    const response = await operation.handler(hostRequest(request), result.caller, params);
    return head ? withoutBody(response) : response;
  };

  return async (request) => {
    let pathname: string;
    try {
      pathname = new URL(request.url).pathname;
    } catch {
      return undefined;
    }
    const match = router.match(pathname);
    if (!match) return resource?.fetch(request);
    const { route, params } = match;
    let answer: Answer;
    try {
      if (isPreflight(request)) return await cors.preflight(request, Object.keys(route.methods));
      try {
        answer = await answerOperation(route, params, request);
      } catch (error) {
        answer = errorAnswer(error, logger, `operation "${request.method} ${route.path}" failed`);
      }
      answer = await cors.apply(request, answer);
    } catch (error) {
      answer = errorAnswer(error, logger); // the context or the CORS origin lookup failed
    }
    return toResponse(answer);
  };
}

/**
 * The table for every instance of a host: matched below the host's layout (`/{instance}/…`), then
 * answered by the table defined for the instance the request is for (defined once per live
 * instance), so a caller is authenticated by that instance only. Requests for no known instance
 * fall through, like paths outside the table.
 */
function hostedOperations(host: HostInternals, table: OperationTable): OperationsHandler {
  const router = new Router(host.mount, compile(table)); // malformed tables throw here, at definition
  const byInstance = new WeakMap<Gatehouse, OperationsHandler>();
  return async (request) => {
    let url: URL;
    try {
      url = new URL(request.url);
    } catch {
      return undefined;
    }
    const match = router.match(url.pathname);
    if (!match) return undefined;
    let instance: Gatehouse | null;
    try {
      instance = await host.instanceNamed(host.nameOf(url, match.params) ?? '');
    } catch (error) {
      return toResponse(errorAnswer(error, host.logger));
    }
    if (!instance) return undefined;
    let handler = byInstance.get(instance);
    if (!handler) {
      handler = defineOperations(instance, table);
      byInstance.set(instance, handler);
    }
    return handler(request);
  };
}

/**
 * The protected resource of a table: its metadata (scopes supported by default: every scope an
 * operation requires), and every operation bound to it (tokens for it; its metadata in challenges)
 * unless the operation names a resource of its own.
 */
function declareResource(gatehouse: Gatehouse, options: ProtectedResourceOptions, routes: OperationRoute[]) {
  const operations = routes.flatMap((route) => Object.values(route.methods));
  const scopes = new Set(operations.flatMap((operation) => scopeList(operation.scope)));
  const resource = protectedResource(gatehouse, { scopes: [...scopes], ...options });
  for (const route of routes) {
    for (const [method, operation] of Object.entries(route.methods)) {
      route.methods[method] = {
        ...operation,
        resource: operation.resource ?? resource.resource,
        resourceMetadata: operation.resourceMetadata ?? resource.metadataUrl,
      };
    }
  }
  return resource;
}

function scopeList(scope: Operation['scope']): readonly string[] {
  return typeof scope === 'string' ? scope.split(' ').filter(Boolean) : (scope ?? []);
}

function compile(table: OperationTable): OperationRoute[] {
  const byPattern = new Map<string, Record<string, Operation>>();
  for (const [key, operation] of Object.entries(table) as [string, Operation][]) {
    const match = /^([A-Z]+) (\/\S*)$/.exec(key);
    if (!match || !METHODS.has(match[1]!)) {
      throw new UsageError(
        `defineOperations: "${key}" is not "<GET|POST|PUT|PATCH|DELETE> /path".`,
        'ERR_INVALID_ARGUMENT',
        'operations',
      );
    }
    if (typeof operation?.handler !== 'function')
      throw new UsageError(
        `defineOperations: "${key}" has no handler.`,
        'ERR_INVALID_ARGUMENT',
        'operations',
      );
    authenticationPlan(operation);
    const pattern = match[2]!;
    let methods = byPattern.get(pattern);
    if (!methods) {
      methods = {};
      byPattern.set(pattern, methods);
    }
    methods[match[1]!] = operation;
  }
  return [...byPattern].map(([path, methods]) => ({ path, methods }));
}
