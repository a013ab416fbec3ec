import type { Awaitable } from '../awaitable.js';
import type { Context } from '../context.js';
import { ConfigurationError } from '../errors.js';
import { lifetime } from '../option-values.js';
import type { GatehouseOptions } from '../options.js';
import { allowedRequestOrigin, isAllowedOrigin, requestOrigin } from './origin.js';
import { type Answer, fieldsOf, isReply } from './reply.js';

/**
 * CORS (Fetch standard §3.2, "CORS protocol") for the REST API and the OAuth endpoints browsers call
 * (token, revoke, userinfo). The one implementation: the router applies it to routes marked
 * `cors: true`, and `gatehouse.cors` / `gatehouse.preflight` / `defineOperations` apply it to a host's
 * own operations.
 *
 * Credentials are always allowed, so the allowed origin is echoed exactly and `*` is never sent
 * (Fetch §3.2.5: `*` does not work with credentials anyway). Unlisted origins, look-alikes and the
 * opaque origin `null` get no `Access-Control-Allow-*` header at all, and the browser refuses.
 */

/** Request headers a cross-origin caller may send: the credentials and the JSON/form body type. */
// DPoP (RFC 9449 §4.1): browser clients send proofs and read server nonces (§8).
const ALLOWED_HEADERS = 'Authorization, Content-Type, DPoP';
/** Response headers a cross-origin caller may read, beyond the safelisted ones. */
const EXPOSED_HEADERS = 'WWW-Authenticate, DPoP-Nonce';

type CorsContext = Pick<Context, 'site' | 'clients'>;

/**
 * How long a browser may cache a preflight's answer (`cors.maxAgeSeconds`); the origins allowed
 * are the clients directory's ({@link isAllowedOrigin}).
 */
export interface CorsSettings {
  readonly maxAgeSeconds: number;
}

/**
 * The `cors` options, checked: the allowed origins (each a serialized origin, no path or slash)
 * and the preflight cache lifetime.
 */
export function corsSettings(
  given: GatehouseOptions['cors'],
): CorsSettings & { readonly allowedOrigins: readonly string[] } {
  for (const origin of given?.allowedOrigins ?? []) {
    let parsed: URL | undefined;
    try {
      parsed = new URL(origin);
    } catch {}
    if (!parsed || parsed.origin !== origin) {
      throw new ConfigurationError(
        `cors.allowedOrigins: "${origin}" is not an origin (scheme://host[:port], no path or slash).`,
        { option: 'cors.allowedOrigins' },
      );
    }
  }
  return {
    allowedOrigins: given?.allowedOrigins ?? [],
    maxAgeSeconds: lifetime('cors.maxAgeSeconds', given?.maxAgeSeconds, 600, 86_400),
  };
}

/** Whether the request is a CORS preflight: `OPTIONS` with `Origin` and `Access-Control-Request-Method`. */
export function isPreflight(request: Request): boolean {
  return (
    request.method === 'OPTIONS' &&
    request.headers.has('origin') &&
    request.headers.has('access-control-request-method')
  );
}

/**
 * The answer to a preflight: 204, with the allow headers when the origin is allowed, without any
 * when it is not (the browser then blocks the actual request). Cacheable per origin for
 * `cors.maxAgeSeconds`.
 */
export async function preflightResponse(
  ctx: CorsContext,
  settings: CorsSettings,
  request: Request,
  methods: readonly string[],
): Promise<Response> {
  const headers = new Headers({
    Vary: 'Origin, Access-Control-Request-Method, Access-Control-Request-Headers',
  });
  const origin = await allowedRequestOrigin(ctx, request);
  if (origin !== null) {
    headers.set('Access-Control-Allow-Origin', origin);
    headers.set('Access-Control-Allow-Credentials', 'true');
    headers.set('Access-Control-Allow-Methods', methods.join(', '));
    headers.set('Access-Control-Allow-Headers', ALLOWED_HEADERS);
    headers.set('Access-Control-Max-Age', String(settings.maxAgeSeconds));
  }
  return new Response(null, { status: 204, headers });
}

/**
 * The actual response with CORS headers: `Vary: Origin` always (the answer depends on it, so caches
 * must key on it), and, for an allowed `Origin`, its exact echo with
 * `Access-Control-Allow-Credentials: true`. A response with immutable headers is copied. A request
 * without `Origin` (servers, native apps: most token requests) is answered at once, not a promise.
 */
export function withCors<T extends Answer>(ctx: CorsContext, request: Request, response: T): Awaitable<T> {
  const origin = requestOrigin(request);
  if (origin === null) return corsFields(response, null);
  return isAllowedOrigin(ctx, origin).then((allowed) => corsFields(response, allowed ? origin : null));
}

/** {@link withCors} once the allowed origin (or none) is known. */
function corsFields<T extends Answer>(response: T, origin: string | null): T {
  const out = mutable(response);
  const headers = fieldsOf(out);
  const vary = headers.get('vary');
  if (vary === null) headers.set('Vary', 'Origin');
  else if (!/(^|,)\s*(origin|\*)\s*(,|$)/i.test(vary)) headers.set('Vary', `${vary}, Origin`);
  if (origin !== null) {
    headers.set('Access-Control-Allow-Origin', origin);
    headers.set('Access-Control-Allow-Credentials', 'true');
    headers.set('Access-Control-Expose-Headers', EXPOSED_HEADERS);
  }
  return out;
}

/** The response itself when its headers can be changed, else a copy (e.g. of `Response.redirect`). */
function mutable<T extends Answer>(response: T): T {
  if (isReply(response)) return response;
  try {
    response.headers.set('x-gatehouse-probe', '');
    response.headers.delete('x-gatehouse-probe');
    return response;
  } catch {
    return new Response(response.body, response) as T;
  }
}
