import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import { request as httpRequest } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { Readable } from 'node:stream';
import { addressCheckingTransport, type NodeNetworking } from '../http/address-checking-transport.js';
import type { OutboundFetch } from '../http/guarded-fetch.js';

/** Options of {@link addressCheckingFetch}. */
export interface AddressCheckingFetchOptions {
  /**
   * Resolves a host name to its addresses. Default: the system resolver (`dns.lookup`, all
   * addresses). Tests pass their own to point names at local servers.
   */
  readonly resolve?: (hostname: string) => Promise<readonly LookupAddress[]>;
}

/** The system resolver: every address of `hostname` (`dns.lookup`, `all`). */
export function systemResolve(hostname: string): Promise<readonly LookupAddress[]> {
  return new Promise((done, fail) =>
    dnsLookup(hostname, { all: true }, (error, addresses) => (error ? fail(error) : done(addresses))),
  );
}

/**
 * The Node.js transport of Gatehouse's outbound requests (`clientMetadataDocuments.fetch`,
 * `clientJwks.fetch`), which checks every address a host name resolves to at connection time
 * (`http/address-checking-transport.ts`). It is already the default on Node.js; pass it to choose
 * the resolver (`resolve`).
 */
export function addressCheckingFetch(options: AddressCheckingFetchOptions = {}): OutboundFetch {
  return addressCheckingTransport({
    resolve: options.resolve ?? systemResolve,
    httpRequest: httpRequest as unknown as NodeNetworking['httpRequest'],
    httpsRequest: httpsRequest as unknown as NodeNetworking['httpsRequest'],
    toWeb: (stream) => Readable.toWeb(stream as unknown as Readable) as unknown as ReadableStream<Uint8Array>,
  });
}
