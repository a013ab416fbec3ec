/**
 * The request Gatehouse hands to host code: always a platform `Request`.
 *
 * The Node bridge builds a light request for Gatehouse's own reading (`BufferedRequest` of
 * `node/buffered-request.ts`): no undici `Request`, no body stream, headers looked up in Node's raw
 * list. It is not a platform `Request` (no internal slots: `new Request(r)` and `fetch(r)` refuse it
 * on Node, Bun and Deno, whatever its prototype), so it never leaves Gatehouse: where Gatehouse calls
 * host code with a request (an operation's handler, `interactions.currentUser`,
 * `rateLimit.clientAddress`), it passes {@link hostRequest} of it, the real `Request` the light one
 * builds on first use. A real `Request` (Hono, Next, a host's own) is passed as it is.
 */

/** The key of the real `Request` a light request builds (`Symbol.for`: the bridge may be another copy of this module). */
export const HOST_REQUEST: unique symbol = Symbol.for('gatehouse.hostRequest') as never;

/** What a light request offers under {@link HOST_REQUEST}: its real `Request`, built once. */
export interface HostRequestSource {
  [HOST_REQUEST](): Request;
}

/** `request` as a platform `Request`: the real one a light request builds, else `request` itself. */
export function hostRequest(request: Request): Request {
  const source = (request as Request & Partial<HostRequestSource>)[HOST_REQUEST];
  return source === undefined ? request : source.call(request);
}

/** `use`, called with the platform `Request` of each request (for a host's callback option). */
export function withHostRequest<A extends unknown[], R>(
  use: (request: Request, ...rest: A) => R,
): (request: Request, ...rest: A) => R {
  return (request, ...rest) => use(hostRequest(request), ...rest);
}
