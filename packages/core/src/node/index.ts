/**
 * `@gatehouse/core/node`: helpers that need Node.js built-ins. The main entry stays runtime-neutral.
 * @packageDocumentation
 */

export {
  encodePreParsedBody,
  type PreParsedBody,
  type ReadWebRequestOptions,
  readWebRequest,
  type SendWebResponseOptions,
  sendWebResponse,
  type ToWebRequestOptions,
  toWebRequest,
  webRequestUrl,
} from './http-bridge.js';
export { type ScryptHasherOptions, scryptHasher } from './scrypt.js';
