import type { Context } from '../context.js';
import type { DpopChecks } from '../dpop/proof.js';
import { oauthError } from '../errors.js';
import { bodyText } from '../http/body.js';
import { noStoreEmpty, noStoreJson, noStoreJsonText } from '../http/responses.js';
import type { Handler, Route } from '../http/router.js';
import { unstorableText } from '../http/storable-text.js';
import { adminAuthentication, adminCaller } from './caller.js';
import { ADMIN_PREFIX, openApiDocument } from './openapi.js';
import type { AdminOperation } from './operations.js';
import type { AdminSettings } from './settings.js';

/** Longest path parameter accepted (a kid, client id, user id, session or grant id). */
const MAX_PARAMETER_LENGTH = 1024;

/**
 * The admin API's routes, from its route table: one route per path (its operations by method),
 * each call checked by {@link adminCaller} first, and `openapi.json`, the one route without a
 * token (it describes the API, and holds nothing of the instance but its issuer and scope name).
 */
export function adminRoutes(
  operations: readonly AdminOperation[],
  settings: Pick<AdminSettings, 'scope' | 'authorize'>,
  dpop: DpopChecks,
): Route[] {
  const authentication = adminAuthentication(settings.scope);
  const byPath = new Map<string, Partial<Record<'GET' | 'POST' | 'DELETE', Handler>>>();
  for (const operation of operations) {
    const path = ADMIN_PREFIX + operation.path.replace(/\{([^}]+)\}/g, ':$1');
    const methods = byPath.get(path) ?? {};
    methods[operation.method] = operationHandler(operation, settings, authentication, dpop);
    byPath.set(path, methods);
  }
  // Serialised once per issuer (27 KB): the document is configuration, the same on every call.
  let document: { readonly issuer: string; readonly text: string } | undefined;
  const openapi: Handler = async (_request, ctx) => {
    if (document?.issuer !== ctx.issuer)
      document = {
        issuer: ctx.issuer,
        text: JSON.stringify(openApiDocument(operations, ctx.issuer, settings.scope)),
      };
    return noStoreJsonText(document.text);
  };
  return [
    { path: `${ADMIN_PREFIX}/openapi.json`, methods: { GET: openapi } },
    ...[...byPath].map(([path, methods]) => ({ path, methods })),
  ];
}

function operationHandler(
  operation: AdminOperation,
  settings: Pick<AdminSettings, 'scope' | 'authorize'>,
  authentication: ReturnType<typeof adminAuthentication>,
  dpop: DpopChecks,
): Handler {
  const pattern = operation.path.split('/').slice(1);
  return async (request: Request, ctx: Context, url: URL) => {
    const actor = await adminCaller(ctx, dpop, settings, authentication, request);
    const params = pathParameters(
      pattern,
      url.pathname.slice(ctx.site.basePath.length + ADMIN_PREFIX.length),
    );
    if (params === undefined) throw oauthError('not_found', 'No such resource.');
    const body = operation.method === 'POST' ? await jsonBody(request, ctx) : {};
    const answer = await operation.handle({ ctx, params, query: url.searchParams, body });
    if (operation.method !== 'GET')
      ctx.emit({ type: 'admin.action', operation: operation.operationId, ...answer.action, actor });
    return answer.status === 204 ? noStoreEmpty(204, {}) : noStoreJson(answer.body);
  };
}

/**
 * The `{name}` segments of `path` (below the admin prefix), decoded; `undefined` when it does not
 * fit (the router matched it, so only a malformed or unstorable value: no such resource).
 */
function pathParameters(pattern: readonly string[], path: string): Record<string, string> | undefined {
  const segments = path.split('/').slice(1);
  if (segments.length !== pattern.length) return undefined;
  const params: Record<string, string> = {};
  for (let i = 0; i < pattern.length; i++) {
    const name = /^\{(.+)\}$/.exec(pattern[i]!)?.[1];
    if (name === undefined) continue;
    let value: string;
    try {
      value = decodeURIComponent(segments[i]!);
    } catch {
      return undefined;
    }
    if (value === '' || value.length > MAX_PARAMETER_LENGTH || unstorableText(value) !== undefined)
      return undefined;
    params[name] = value;
  }
  return params;
}

/** The JSON object of a POST body (bounded by `maxBodyBytes`); `{}` for an empty body. */
async function jsonBody(request: Request, ctx: Pick<Context, 'limits'>): Promise<Record<string, unknown>> {
  const text = request.body === null ? '' : await bodyText(request, ctx.limits.maxBodyBytes);
  if (text.trim() === '') return {};
  const type = request.headers.get('content-type') ?? '';
  if (!/^application\/json\s*(;|$)/i.test(type))
    throw oauthError('invalid_request', 'The body must be JSON (Content-Type: application/json).');
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw oauthError('invalid_request', 'The body is not valid JSON.');
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value))
    throw oauthError('invalid_request', 'The body must be a JSON object.');
  return value as Record<string, unknown>;
}
