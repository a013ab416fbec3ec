import { type OutboundFetch, OutboundFetchError, refusedUrlReason } from './guarded-fetch.js';
import { type AddressPolicy, refusedAddressReason } from './ip-address.js';

/** One address of a resolved name, as `dns.lookup(…, { all: true })` gives it. */
export interface ResolvedAddress {
  readonly address: string;
  readonly family: number;
}

/** The parts of a Node.js `http.ClientRequest` the transport uses. */
interface NodeClientRequest {
  once(event: 'error', listener: (error: Error) => void): unknown;
  once(event: 'response', listener: (response: NodeIncomingMessage) => void): unknown;
  end(body?: string): unknown;
}

/** The parts of a Node.js `http.IncomingMessage` the transport uses. */
interface NodeIncomingMessage {
  readonly statusCode?: number;
  readonly headers: Readonly<Record<string, string | string[] | undefined>>;
  resume(): unknown;
}

/**
 * The Node.js built-ins the address-checking transport runs on (`node:dns`, `node:http`,
 * `node:https`, `node:stream`), handed in rather than imported so that this module stays
 * runtime-neutral: `@gatehousejs/core/node` imports them, the main entry's default transport takes
 * them from `process.getBuiltinModule` when the runtime is Node.js (`default-transport.ts`).
 */
export interface NodeNetworking {
  readonly resolve: (hostname: string) => Promise<readonly ResolvedAddress[]>;
  readonly httpRequest: (url: URL, options: Record<string, unknown>) => NodeClientRequest;
  readonly httpsRequest: (url: URL, options: Record<string, unknown>) => NodeClientRequest;
  readonly toWeb: (stream: NodeIncomingMessage) => ReadableStream<Uint8Array>;
}

/** The `lookup` callback of a Node.js socket (`net.LookupFunction`), structurally. */
type LookupCallback = (
  error: Error | null,
  address: string | readonly ResolvedAddress[],
  family?: number,
) => void;

const NULL_BODY_STATUSES = new Set([101, 204, 205, 304]);

/**
 * Gatehouse's outbound transport on Node.js (`clientMetadataDocuments.fetch`, `clientJwks.fetch`):
 * a GET (or POST) over `node:http`/`node:https` whose connection goes only to addresses the policy allows.
 * The check sits in the socket's `lookup`, so it applies to the very addresses the connection
 * uses: every address a name resolves to must be allowed (a name with one private address among
 * public ones is refused), and a DNS answer that changes between a check and the connection
 * (rebinding) cannot slip through. Redirects are answered, never followed. Each fetch has its own
 * connection, closed after it (no keep-alive pool): the connections held are the fetches in
 * flight, which the callers cap, and no idle socket to a host a client chose outlives its fetch.
 */
export function addressCheckingTransport(node: NodeNetworking): OutboundFetch {
  return ({ url, method = 'GET', headers, body, signal, policy }) => {
    const refused = refusedUrlReason(url, policy);
    if (refused) return Promise.reject(new OutboundFetchError(refused, 'ERR_FETCH_REFUSED_URL'));
    return new Promise<Response>((done, fail) => {
      const send = url.protocol === 'https:' ? node.httpsRequest : node.httpRequest;
      const request = send(url, {
        method,
        headers,
        signal,
        agent: false,
        lookup: checkedLookup(node.resolve, policy),
      });
      request.once('error', fail);
      request.once('response', (response) => {
        const status = response.statusCode ?? 0;
        const body = NULL_BODY_STATUSES.has(status) ? null : node.toWeb(response);
        if (body === null) response.resume();
        done(new Response(body, { status, headers: headersOf(response) }));
      });
      request.end(body);
    });
  };
}

/** A socket `lookup` that resolves with `resolve` and refuses any address the policy refuses. */
function checkedLookup(
  resolve: (hostname: string) => Promise<readonly ResolvedAddress[]>,
  policy: AddressPolicy,
): (hostname: string, options: { family?: unknown; all?: boolean }, callback: LookupCallback) => void {
  return (hostname, lookupOptions, callback) => {
    resolve(hostname).then(
      (addresses) => {
        const refused = addresses
          .map((entry) => refusedAddressReason(entry.address, policy))
          .find((reason) => reason !== undefined);
        if (addresses.length === 0 || refused) {
          const reason = refused ?? 'its host name has no address';
          callback(
            new OutboundFetchError(`its host cannot be fetched: ${reason}`, 'ERR_FETCH_REFUSED_URL'),
            '',
            0,
          );
          return;
        }
        const wanted = lookupOptions.family === 4 || lookupOptions.family === 6 ? lookupOptions.family : 0;
        const usable = wanted ? addresses.filter((entry) => entry.family === wanted) : [...addresses];
        if (lookupOptions.all) callback(null, usable);
        else callback(null, usable[0]?.address ?? '', usable[0]?.family ?? 0);
      },
      (error: Error) => callback(error, '', 0),
    );
  };
}

function headersOf(response: NodeIncomingMessage): Headers {
  const headers = new Headers();
  for (const [name, value] of Object.entries(response.headers)) {
    if (value === undefined) continue;
    for (const item of Array.isArray(value) ? value : [value]) headers.append(name, item);
  }
  return headers;
}
