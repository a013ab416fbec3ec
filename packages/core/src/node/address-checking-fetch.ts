import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import { request as httpRequest, type IncomingMessage } from 'node:http';
import { request as httpsRequest } from 'node:https';
import type { LookupFunction } from 'node:net';
import { Readable } from 'node:stream';
import { type OutboundFetch, OutboundFetchError, refusedUrlReason } from '../http/guarded-fetch.js';
import { type AddressPolicy, refusedAddressReason } from '../http/ip-address.js';

/** Options of {@link addressCheckingFetch}. */
export interface AddressCheckingFetchOptions {
  /**
   * Resolves a host name to its addresses. Default: the system resolver (`dns.lookup`, all
   * addresses). Tests pass their own to point names at local servers.
   */
  readonly resolve?: (hostname: string) => Promise<readonly LookupAddress[]>;
}

const NULL_BODY_STATUSES = new Set([101, 204, 205, 304]);

/**
 * The Node.js transport of Gatehouse's outbound requests (`clientMetadataDocuments.fetch`,
 * `clientJwks.fetch`): a GET over `node:http`/`node:https` whose connection goes only to addresses
 * the policy allows. The check sits in the socket's `lookup`, so it applies to the very addresses
 * the connection uses: every address a name resolves to must be allowed (a name with one private
 * address among public ones is refused), and a DNS answer that changes between a check and the
 * connection (rebinding) cannot slip through. Redirects are answered, never followed.
 */
export function addressCheckingFetch(options: AddressCheckingFetchOptions = {}): OutboundFetch {
  const resolve =
    options.resolve ??
    ((hostname: string) =>
      new Promise<readonly LookupAddress[]>((done, fail) =>
        dnsLookup(hostname, { all: true }, (error, addresses) => (error ? fail(error) : done(addresses))),
      ));
  return ({ url, headers, signal, policy }) => {
    const refused = refusedUrlReason(url, policy);
    if (refused) return Promise.reject(new OutboundFetchError(refused, 'ERR_FETCH_REFUSED_URL'));
    return new Promise<Response>((done, fail) => {
      const send = url.protocol === 'https:' ? httpsRequest : httpRequest;
      const request = send(url, { method: 'GET', headers, signal, lookup: checkedLookup(resolve, policy) });
      request.once('error', fail);
      request.once('response', (response: IncomingMessage) => {
        const status = response.statusCode ?? 0;
        const body = NULL_BODY_STATUSES.has(status)
          ? null
          : (Readable.toWeb(response) as unknown as ReadableStream<Uint8Array>);
        if (body === null) response.resume();
        done(new Response(body, { status, headers: headersOf(response) }));
      });
      request.end();
    });
  };
}

/** A socket `lookup` that resolves with `resolve` and refuses any address the policy refuses. */
function checkedLookup(
  resolve: (hostname: string) => Promise<readonly LookupAddress[]>,
  policy: AddressPolicy,
): LookupFunction {
  return (hostname, lookupOptions, callback) => {
    resolve(hostname).then(
      (addresses) => {
        const refused = addresses
          .map((entry) => refusedAddressReason(entry.address, policy))
          .find((reason) => reason !== undefined);
        if (addresses.length === 0 || refused) {
          const reason = refused ?? 'its host name has no address';
          const error = new OutboundFetchError(
            `its host cannot be fetched: ${reason}`,
            'ERR_FETCH_REFUSED_URL',
          );
          callback(error as unknown as NodeJS.ErrnoException, '', 0);
          return;
        }
        const wanted = lookupOptions.family === 4 || lookupOptions.family === 6 ? lookupOptions.family : 0;
        const usable = wanted ? addresses.filter((entry) => entry.family === wanted) : [...addresses];
        if (lookupOptions.all) callback(null, usable);
        else callback(null, usable[0]?.address ?? '', usable[0]?.family ?? 0);
      },
      (error: NodeJS.ErrnoException) => callback(error, '', 0),
    );
  };
}

function headersOf(response: IncomingMessage): Headers {
  const headers = new Headers();
  for (const [name, value] of Object.entries(response.headers)) {
    if (value === undefined) continue;
    for (const item of Array.isArray(value) ? value : [value]) headers.append(name, item);
  }
  return headers;
}
