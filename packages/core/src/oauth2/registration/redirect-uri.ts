import { isLoopbackHost } from '../../http/ip-address.js';

/** Longest redirect URI accepted at registration (it travels in every authorization request). */
const MAX_REDIRECT_URI_LENGTH = 2000;

/**
 * Why `uri` cannot be registered as a redirect URI, or `undefined` when it can: an absolute `https`
 * URI, or an `http` one on a loopback host (RFC 8252 §7.3, native apps listening on a local port);
 * no fragment (RFC 6749 §3.1.2), no user information. It is stored and later compared exactly as
 * given (RFC 9700 §4.1.3), so nothing is normalised here.
 */
export function refusedRedirectUriReason(uri: unknown): string | undefined {
  if (typeof uri !== 'string' || uri === '') return 'a redirect URI is not a non-empty string';
  if (uri.length > MAX_REDIRECT_URI_LENGTH)
    return `a redirect URI is longer than ${MAX_REDIRECT_URI_LENGTH} characters`;
  let url: URL;
  try {
    url = new URL(uri);
  } catch {
    return `"${uri}" is not an absolute URI`;
  }
  if (uri.includes('#')) return `"${uri}" has a fragment (RFC 6749 section 3.1.2)`;
  if (url.username !== '' || url.password !== '') return `"${uri}" carries user information`;
  if (url.protocol === 'https:') return undefined;
  if (url.protocol === 'http:' && isLoopbackHost(url.hostname)) return undefined;
  return `"${uri}" is neither https nor http on a loopback host`;
}
