/**
 * `@gatehouse/core/node`: helpers that need Node.js built-ins. The main entry stays runtime-neutral.
 * @packageDocumentation
 */

export {
  encodePreParsedBody,
  type PreParsedBody,
  type SendWebResponseOptions,
  sendWebResponse,
  type ToWebRequestOptions,
  toWebRequest,
} from './http-bridge.js';
export { type ScryptHasherOptions, scryptHasher } from './scrypt.js';
