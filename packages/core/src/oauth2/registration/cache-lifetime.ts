import type { EpochMs, Seconds } from '../../time.js';

/**
 * How long a fetched client ID metadata document is kept (draft-ietf-oauth-client-id-metadata-document
 * §5.2: the server caches it per HTTP caching, RFC 9111, within its own bounds): `max-age` of
 * `Cache-Control` (§5.2.2.1), else `Expires` minus `Date` (§4.2.1); `no-store`, `no-cache` or
 * neither give the minimum, and the result is clamped to `[min, max]`. The minimum protects the
 * documents' hosts and this server from a fetch per request.
 */
export function cacheLifetime(headers: Headers, now: EpochMs, min: Seconds, max: Seconds): Seconds {
  const clamp = (seconds: number) => Math.min(max, Math.max(min, Math.floor(seconds)));
  const cacheControl = (headers.get('cache-control') ?? '').toLowerCase();
  const directives = cacheControl.split(',').map((directive) => directive.trim());
  if (directives.some((directive) => directive === 'no-store' || directive === 'no-cache')) return min;
  for (const directive of directives) {
    const match = /^max-age=(\d{1,10})$/.exec(directive);
    if (match) return clamp(Number(match[1]));
  }
  const expires = headers.get('expires');
  if (expires !== null) {
    const expiresAt = Date.parse(expires);
    if (Number.isNaN(expiresAt)) return min; // RFC 9111 §5.3: an invalid Expires means already stale
    const date = Date.parse(headers.get('date') ?? '');
    return clamp((expiresAt - (Number.isNaN(date) ? now : date)) / 1000);
  }
  return min;
}
