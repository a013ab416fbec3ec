/**
 * The one handler every runtime here serves: the demo's tickets API, then every route of both demo
 * instances (`demo`, `acme`, one `createGatehouseHost`), each a plain `Request` → `Response`
 * function of `@gatehousejs/core`. No adapter and no bridge sit in
 * between, so what runs is exactly what a Bun, Deno or Workers host would call.
 */
import { setClientAddress } from '@gatehousejs/core/adapter';
import { type DemoHost, demoApi } from '@gatehousejs/demo';

/** The header naming the runtime that answered, for the tests to check who served them. */
export const RUNTIME_HEADER = 'x-gatehouse-runtime';

/** The runtime this code runs on, told by the globals only that runtime defines. */
export function runtimeName(): 'bun' | 'deno' | 'workerd' | 'node' | 'unknown' {
  const scope = globalThis as { Bun?: unknown; Deno?: unknown; navigator?: { userAgent?: string } };
  if (scope.Bun !== undefined) return 'bun';
  if (scope.Deno !== undefined) return 'deno';
  if (scope.navigator?.userAgent === 'Cloudflare-Workers') return 'workerd';
  if ((globalThis as { process?: { release?: { name?: string } } }).process?.release?.name === 'node')
    return 'node';
  return 'unknown';
}

/**
 * A fetch handler for the demo host `demo`. `clientAddress` reads the caller's address the way the runtime
 * offers it (Bun's `server.requestIP`, Deno's `info.remoteAddr`, Cloudflare's `CF-Connecting-IP`),
 * for the password rate limiter; it is called once, as the request arrives.
 */
export function demoHandler(
  demo: DemoHost,
): (request: Request, clientAddress?: () => string | undefined) => Promise<Response> {
  const api = demoApi(demo.host);
  const runtime = runtimeName();
  return async (request, clientAddress) => {
    // Read as the request arrives, like the Node adapters do: a lookup deferred until the limiter
    // needs it could find the client gone (and an unknown address).
    const address = clientAddress?.();
    if (address) setClientAddress(request, address);
    // The portal (issue 29: a host app with its own sign-in and OpenID Provider) first, when made.
    const response =
      (await demo.portal?.fetch(request)) ?? (await api(request)) ?? (await demo.host.fetch(request));
    // A copy: a response's headers may be immutable (Response.redirect); the body stream moves over.
    const labelled = new Response(response.body, response);
    labelled.headers.set(RUNTIME_HEADER, runtime);
    return labelled;
  };
}
