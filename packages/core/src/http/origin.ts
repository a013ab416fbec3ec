import type { Context } from '../context.js';

/**
 * Where a request comes from, as far as the browser tells: the `Origin` header (RFC 6454 §7),
 * or `null` when absent. The literal string `"null"` (opaque origin) is returned as is.
 */
export function requestOrigin(request: Request): string | null {
  return request.headers.get('origin');
}

/**
 * Whether a browser request demonstrably comes from the instance's own origin: an `Origin` header
 * equal to the issuer's origin, or, when the browser sent no usable Origin (`null` under a
 * `no-referrer` policy, or none on a same-origin GET), `Sec-Fetch-Site: same-origin`.
 * Non-browser clients (no Origin, no Sec-Fetch-Site) are not "same origin".
 */
export function isSameOrigin(ctx: Pick<Context, 'site'>, request: Request): boolean {
  const origin = requestOrigin(request);
  if (origin !== null && origin !== 'null') return origin === ctx.site.origin;
  return request.headers.get('sec-fetch-site') === 'same-origin';
}

/**
 * Whether a request is cross-site according to the signals a browser sends: an `Origin` other than
 * the issuer's (or `allowed`), or `Sec-Fetch-Site` of `cross-site`/`same-site`.
 * Requests without either header (curl, servers) are not cross-site: they carry no ambient cookies
 * an attacker could ride on.
 */
export function isForeignBrowserRequest(
  ctx: Pick<Context, 'site'>,
  request: Request,
  allowed: (origin: string) => boolean = () => false,
): boolean {
  const origin = requestOrigin(request);
  if (origin !== null) {
    if (origin === 'null') return request.headers.get('sec-fetch-site') !== 'same-origin';
    if (origin !== ctx.site.origin && !allowed(origin)) return true;
  }
  const site = request.headers.get('sec-fetch-site');
  if (site === 'cross-site' || site === 'same-site')
    return origin === null || (origin !== ctx.site.origin && !allowed(origin));
  return false;
}

/**
 * Whether `origin` may make credentialed requests (CORS with cookies, session-authenticated API
 * calls): the issuer's own origin, an origin of `cors.allowedOrigins`, or an origin some client
 * registered in `allowedOrigins` (asked of `ClientStore.isOriginAllowed` only when the static list
 * does not have it). Comparison is exact string equality on the serialized origin (RFC 6454 §6.2),
 * so `https://allowed.example.evil.com` or `https://evilallowed.example` never match
 * `https://allowed.example`; the opaque origin `"null"` is never allowed. Nothing is cached across
 * requests, so a client store change applies to the next request. A failing client store rejects
 * with `StorageUnavailableError` (the client store is guarded).
 */
export async function isAllowedOrigin(
  ctx: Pick<Context, 'site' | 'clients'>,
  origin: string,
): Promise<boolean> {
  if (origin === ctx.site.origin) return true;
  if (origin === 'null' || origin.length > 2048) return false;
  return ctx.clients.isOriginAllowed(origin);
}

/**
 * The request's `Origin` when it is allowed ({@link isAllowedOrigin}), else `null`: the value a
 * CORS response may echo in `Access-Control-Allow-Origin`.
 */
export async function allowedRequestOrigin(
  ctx: Pick<Context, 'site' | 'clients'>,
  request: Request,
): Promise<string | null> {
  const origin = requestOrigin(request);
  if (origin === null) return null;
  return (await isAllowedOrigin(ctx, origin)) ? origin : null;
}
