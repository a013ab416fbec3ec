import { ProtocolError } from '../errors.js';
import type { Gatehouse } from '../gatehouse.js';
import { acceptedSchemes } from './authenticate.js';
import type { AuthenticateOptions, Caller } from './types.js';

/** Methods an operation can be declared for. `HEAD` is answered by the `GET` operation. */
export type OperationMethod = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

/** Answers an authenticated request. `params` holds the `:name` segments of the path, decoded. */
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

/** Answers a request when the table has its path, else `undefined` (so the host can fall through). */
export type OperationsHandler = (request: Request) => Promise<Response | undefined>;

interface CompiledPath {
  readonly segments: readonly string[];
  readonly methods: Map<string, Operation>;
}

const METHODS: ReadonlySet<string> = new Set(['GET', 'POST', 'PUT', 'PATCH', 'DELETE']);

/**
 * Protects a table of the host's REST operations, each declaring its schemes (seed §5 rule 1):
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
 * any other error propagates to the host. Paths match segment by segment; the first declared
 * pattern that matches wins. Throws `TypeError` at definition for malformed keys or schemes.
 */
export function defineOperations(
  gatehouse: Pick<Gatehouse, 'basePath' | 'authenticate' | 'cors' | 'preflight'>,
  table: OperationTable,
): OperationsHandler {
  const paths = compile(table);
  return async (request) => {
    const match = matchPath(paths, gatehouse.basePath, request.url);
    if (!match) return undefined;
    const { path, params } = match;
    const preflight =
      request.method === 'OPTIONS' ? await gatehouse.preflight(request, [...path.methods.keys()]) : undefined;
    if (preflight) return preflight;
    const operation = path.methods.get(request.method === 'HEAD' ? 'GET' : request.method);
    if (!operation) return gatehouse.cors(request, methodNotAllowed(path).toResponse());
    const result = await gatehouse.authenticate(request, operation);
    if (!result.ok) return gatehouse.cors(request, result.response);
    let response: Response;
    try {
      response = await operation.handler(request, result.caller, params);
    } catch (error) {
      if (!(error instanceof ProtocolError)) throw error;
      response = error.toResponse();
    }
    if (request.method === 'HEAD') response = new Response(null, response);
    return gatehouse.cors(request, response);
  };
}

function compile(table: OperationTable): CompiledPath[] {
  const byPattern = new Map<string, CompiledPath>();
  for (const [key, operation] of Object.entries(table) as [string, Operation][]) {
    const match = /^([A-Z]+) (\/\S*)$/.exec(key);
    if (!match || !METHODS.has(match[1]!)) {
      throw new TypeError(`defineOperations: "${key}" is not "<GET|POST|PUT|PATCH|DELETE> /path".`);
    }
    if (typeof operation?.handler !== 'function')
      throw new TypeError(`defineOperations: "${key}" has no handler.`);
    acceptedSchemes(operation);
    const pattern = match[2]!;
    let path = byPattern.get(pattern);
    if (!path) {
      path = { segments: pattern.split('/').slice(1), methods: new Map() };
      byPattern.set(pattern, path);
    }
    path.methods.set(match[1]!, operation);
  }
  return [...byPattern.values()];
}

function matchPath(
  paths: readonly CompiledPath[],
  basePath: string,
  url: string,
): { path: CompiledPath; params: Record<string, string> } | undefined {
  let pathname: string;
  try {
    pathname = new URL(url).pathname;
  } catch {
    return undefined;
  }
  if (basePath !== '') {
    if (!pathname.startsWith(`${basePath}/`)) return undefined;
    pathname = pathname.slice(basePath.length);
  }
  const segments = pathname.split('/').slice(1);
  for (const path of paths) {
    if (path.segments.length !== segments.length) continue;
    const params: Record<string, string> = {};
    let matches = true;
    for (let i = 0; i < segments.length && matches; i++) {
      const expected = path.segments[i]!;
      const actual = segments[i]!;
      if (expected.startsWith(':') && actual !== '') {
        try {
          params[expected.slice(1)] = decodeURIComponent(actual);
        } catch {
          matches = false;
        }
      } else matches = expected === actual;
    }
    if (matches) return { path, params };
  }
  return undefined;
}

function methodNotAllowed(path: CompiledPath): ProtocolError {
  const allow = [...path.methods.keys()];
  if (path.methods.has('GET')) allow.push('HEAD');
  return new ProtocolError('method_not_allowed', `Use ${allow.join(', ')} on this endpoint.`, {
    status: 405,
    headers: { Allow: allow.join(', ') },
  });
}
