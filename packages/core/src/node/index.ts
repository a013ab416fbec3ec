/**
 * `@gatehousejs/core/node`: helpers that need Node.js built-ins. The main entry stays runtime-neutral.
 * @packageDocumentation
 */

export type { AddressPolicy } from '../http/ip-address.js';
export { type AddressCheckingFetchOptions, addressCheckingFetch } from './address-checking-fetch.js';
export { type ClosableAuditSink, fileAuditSink } from './audit-file-sink.js';
export {
  type FrameworkRequestExtras,
  frameworkHeaderRequest,
  frameworkRequestOptions,
  type ProxyAwareRequest,
} from './framework-request.js';
export { encodePreParsedBody, type PreParsedBody } from './pre-parsed-body.js';
export { type ScryptHasherOptions, scryptHasher } from './scrypt.js';
export {
  type ReadWebRequestOptions,
  readGatehouseRequest,
  readWebRequest,
  type ToWebRequestOptions,
  toGatehouseRequest,
  toWebRequest,
  webRequestUrl,
} from './web-request.js';
export { type SendWebResponseOptions, sendWebResponse } from './web-response.js';
