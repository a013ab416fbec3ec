import { withHostRequest } from './host-request.js';

/**
 * The network address of a request's client, attached by the adapter that built the `Request`.
 *
 * A Web `Request` has no client address, and a header would be spoofable (anyone can send
 * `X-Forwarded-For`). So adapters, which know the socket and their framework's proxy settings
 * (Express `trust proxy`, Koa `app.proxy`), attach the address to the `Request` object itself.
 * The key is a registered symbol (`Symbol.for`), not a module-local WeakMap, so the address survives
 * when the adapter and the host load different copies of `@gatehousejs/core` (ESM and CJS builds).
 */

const CLIENT_ADDRESS: unique symbol = Symbol.for('gatehouse.clientAddress') as never;

type WithAddress = Request & { readonly [CLIENT_ADDRESS]?: string };

/**
 * Records the client address of `request` (for the password rate limiter). Adapters call it right
 * after building the request, with the address they read then: a lookup deferred until the limiter
 * asks would find nothing once the client has reset the connection (Node reports no address for a
 * socket the client has reset), and a client could shed its per-address limit that way. The value cannot be
 * changed afterwards; `undefined` or `''` records nothing.
 */
export function setClientAddress(request: Request, address: string | undefined): void {
  if (!address || Object.hasOwn(request, CLIENT_ADDRESS) || clientAddressOf(request) !== undefined) return;
  Object.defineProperty(request, CLIENT_ADDRESS, { value: address, enumerable: false, writable: false });
}

/**
 * How the instance finds a request's client address: the host's `rateLimit.clientAddress` (given
 * a platform `Request`, never the Node bridge's light one: host-request.ts), else
 * {@link clientAddressOf}.
 */
export function clientAddressLookup(
  hostLookup: ((request: Request) => string | undefined) | undefined,
): (request: Request) => string | undefined {
  return typeof hostLookup === 'function' ? withHostRequest(hostLookup) : clientAddressOf;
}

/**
 * The client address an adapter recorded with {@link setClientAddress}, or `undefined` when the
 * request was built without one (the default `rateLimit.clientAddress`).
 */
export function clientAddressOf(request: Request): string | undefined {
  return (request as WithAddress)[CLIENT_ADDRESS];
}
