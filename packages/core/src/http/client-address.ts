/**
 * The network address of a request's client, attached by the adapter that built the `Request`.
 *
 * A Web `Request` has no client address, and a header would be spoofable (anyone can send
 * `X-Forwarded-For`). So adapters, which know the socket and their framework's proxy settings
 * (Express `trust proxy`, Koa `app.proxy`), attach the address to the `Request` object itself.
 * The key is a registered symbol (`Symbol.for`), not a module-local WeakMap, so the address survives
 * when the adapter and the host load different copies of `@gatehouse/core` (ESM and CJS builds).
 */

const CLIENT_ADDRESS: unique symbol = Symbol.for('gatehouse.clientAddress') as never;

type WithAddress = Request & { readonly [CLIENT_ADDRESS]?: string };

/**
 * Records the client address of `request` (for the password rate limiter). Adapters call it right
 * after building the request; the value cannot be changed afterwards. A function is called on the
 * first read only (most requests never need the address, and a proxy-aware lookup has a cost).
 */
export function setClientAddress(
  request: Request,
  address: string | undefined | (() => string | undefined),
): void {
  if (!address || Object.hasOwn(request, CLIENT_ADDRESS) || clientAddressOf(request) !== undefined) return;
  if (typeof address === 'string') {
    Object.defineProperty(request, CLIENT_ADDRESS, { value: address, enumerable: false, writable: false });
    return;
  }
  let lookup: (() => string | undefined) | undefined = address;
  let value: string | undefined;
  Object.defineProperty(request, CLIENT_ADDRESS, {
    enumerable: false,
    get() {
      if (lookup) {
        value = lookup() || undefined;
        lookup = undefined;
      }
      return value;
    },
  });
}

/**
 * The client address an adapter recorded with {@link setClientAddress}, or `undefined` when the
 * request was built without one (the default `rateLimit.clientAddress`).
 */
export function clientAddressOf(request: Request): string | undefined {
  return (request as WithAddress)[CLIENT_ADDRESS];
}
