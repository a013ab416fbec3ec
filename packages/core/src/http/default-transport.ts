import {
  addressCheckingTransport,
  type NodeNetworking,
  type ResolvedAddress,
} from './address-checking-transport.js';
import { type OutboundFetch, runtimeFetch } from './guarded-fetch.js';

/** The transport outbound requests use when the host passes none, and what it checks. */
export interface DefaultTransport {
  readonly fetch: OutboundFetch;
  /**
   * Whether it checks the addresses a DNS name resolves to (Node.js). When not, only IP-literal
   * hosts are checked, and names are left to the platform's resolver and egress rules.
   */
  readonly checksResolvedAddresses: boolean;
}

let chosen: DefaultTransport | undefined;

/**
 * The default transport of `clientMetadataDocuments` and `clientJwks`, chosen once per process.
 * On Node.js: the address-checking transport (`address-checking-transport.ts`), on the built-ins
 * `process.getBuiltinModule` hands out, so the main entry imports no `node:` module and bundles
 * for other runtimes unchanged. Elsewhere (Bun, Deno, Cloudflare Workers, edge runtimes, and
 * Node.js before 20.16 which lacks `getBuiltinModule`): the runtime's `fetch`, and
 * `createGatehouse` warns when anonymous callers can name URLs (`resolve-options.ts`).
 *
 * Bun and Deno have a `node:http`, but whether their sockets honour a `lookup` (where the check
 * sits) is theirs to decide; a check that may silently not run is not used.
 */
export function defaultTransport(): DefaultTransport {
  chosen ??= transportFor(globalThis);
  return chosen;
}

/** The default transport for a runtime whose global object is `global`. */
export function transportFor(global: RuntimeGlobals): DefaultTransport {
  const node = nodeNetworking(global);
  return node
    ? { fetch: addressCheckingTransport(node), checksResolvedAddresses: true }
    : { fetch: runtimeFetch, checksResolvedAddresses: false };
}

interface NodeProcess {
  readonly versions?: { readonly node?: string };
  readonly getBuiltinModule?: (id: string) => unknown;
}

/** What of the global object tells the runtime apart. */
export interface RuntimeGlobals {
  readonly Bun?: unknown;
  readonly Deno?: unknown;
  readonly navigator?: { readonly userAgent?: string };
  readonly process?: NodeProcess;
}

/** Node.js's networking built-ins, or `undefined` on any other runtime. */
function nodeNetworking(global: RuntimeGlobals): NodeNetworking | undefined {
  if (global.Bun !== undefined || global.Deno !== undefined) return undefined;
  if (global.navigator?.userAgent?.startsWith('Cloudflare-Workers')) return undefined;
  const process = global.process;
  if (typeof process?.versions?.node !== 'string' || typeof process.getBuiltinModule !== 'function')
    return undefined;
  try {
    const dns = process.getBuiltinModule('node:dns') as {
      lookup(
        hostname: string,
        options: { all: true },
        callback: (error: Error | null, addresses: ResolvedAddress[]) => void,
      ): void;
    };
    const http = process.getBuiltinModule('node:http') as { request: NodeNetworking['httpRequest'] };
    const https = process.getBuiltinModule('node:https') as { request: NodeNetworking['httpsRequest'] };
    const stream = process.getBuiltinModule('node:stream') as {
      Readable: { toWeb(stream: unknown): ReadableStream<Uint8Array> };
    };
    if (!dns?.lookup || !http?.request || !https?.request || !stream?.Readable?.toWeb) return undefined;
    return {
      resolve: (hostname) =>
        new Promise((done, fail) =>
          dns.lookup(hostname, { all: true }, (error, addresses) => (error ? fail(error) : done(addresses))),
        ),
      httpRequest: (url, options) => http.request(url, options),
      httpsRequest: (url, options) => https.request(url, options),
      toWeb: (response) => stream.Readable.toWeb(response),
    };
  } catch {
    return undefined;
  }
}
