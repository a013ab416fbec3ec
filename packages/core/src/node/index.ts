/**
 * `@gatehouse/core/node`: helpers that need Node.js built-ins. The main entry stays runtime-neutral.
 * @packageDocumentation
 */
export { type ScryptHasherOptions, scryptHasher } from './scrypt.js';
