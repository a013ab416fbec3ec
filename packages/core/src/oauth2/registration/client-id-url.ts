import { isLoopbackHost } from '../../http/ip-address.js';

/**
 * Whether `clientId` is meant as a client ID metadata document URL: it starts with `https://` or
 * `http://`. Such an id (unknown to the host and the registry) is then either a valid document URL
 * or refused with the reason (an `http` one: "not https"), rather than answered "unknown client".
 */
export function looksLikeClientIdUrl(clientId: string): boolean {
  return /^https?:\/\//i.test(clientId);
}

/**
 * Why `clientId` is not a valid client identifier URL (draft-ietf-oauth-client-id-metadata-document
 * §3), or `undefined`: https scheme (http only on a loopback host, when allowed), a path other than
 * `/`, no dot segments, no fragment, no user information. The id is compared and stored exactly as
 * sent; the URL parser's normalisation is only used to check it, so an id the parser would rewrite
 * (upper-case scheme or host, default port, dot segments) is refused rather than silently changed.
 */
export function refusedClientIdUrlReason(clientId: string, allowLoopback: boolean): string | undefined {
  if (clientId.length > 2000) return 'the client_id URL is longer than 2000 characters';
  let url: URL;
  try {
    url = new URL(clientId);
  } catch {
    return 'the client_id is not a URL';
  }
  if (url.protocol === 'http:') {
    if (!allowLoopback || !isLoopbackHost(url.hostname)) return 'the client_id URL is not https';
  } else if (url.protocol !== 'https:') return 'the client_id URL is not https';
  if (clientId.includes('#')) return 'the client_id URL has a fragment';
  if (url.username !== '' || url.password !== '') return 'the client_id URL carries user information';
  const rawPath = clientId.replace(/^[a-z]+:\/\/[^/?#]*/i, '').split(/[?#]/, 1)[0]!;
  if (rawPath === '' || rawPath === '/') return 'the client_id URL has no path';
  if (
    rawPath.split('/').some((segment) => segment === '.' || segment === '..' || /^%2e(%2e)?$/i.test(segment))
  )
    return 'the client_id URL has a dot segment';
  if (url.href !== clientId) return 'the client_id URL is not in normal form (as the URL parser writes it)';
  return undefined;
}
