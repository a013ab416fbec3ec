/** Which request methods a Fetch `Request` can carry. */
import { isHttpToken } from '../http/http-token.js';

/**
 * Methods the Fetch standard forbids (§2.2.1 "forbidden method"): `new Request()` throws for them,
 * in any letter case. Node's parser delivers `TRACE` like any other method (`CONNECT` goes to the
 * server's `connect` event instead), so the bridge has to expect them from any client.
 */
const FORBIDDEN = new Set(['CONNECT', 'TRACE', 'TRACK']);

/**
 * Whether `new Request(url, { method })` accepts `method`: a token (RFC 9110 §9.1) that is not a
 * forbidden method. For the others the bridge builds a body-less `BufferedRequest`, so the instance
 * answers 405 with `Allow` on its own paths (RFC 9110 §15.5.6) rather than the host seeing a throw.
 */
export function fetchAcceptsMethod(method: string): boolean {
  return isHttpToken(method) && !FORBIDDEN.has(method.toUpperCase());
}
