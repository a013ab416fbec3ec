import { ConfigurationError } from './errors.js';

/*
 * Checks of option values every feature uses to turn its options into settings (`feature.ts`):
 * shared core, so that no feature imports another one's settings for them.
 */

/** `value` (or `fallback` when absent), checked to be a whole number from `min` to `max`. */
export function whole(
  name: string,
  value: number | undefined,
  fallback: number,
  min: number,
  max: number,
): number {
  const n = value ?? fallback;
  if (!Number.isInteger(n) || n < min || n > max)
    throw new ConfigurationError(
      `${name}: expected a whole number from ${min} to ${max}, got ${String(value)}.`,
      { option: name },
    );
  return n;
}

/** A lifetime in seconds (`value`, or `fallback` when absent), from 1 to `max`. */
export function lifetime(
  name: string,
  value: number | undefined,
  fallback: number,
  max = 366 * 86_400,
): number {
  const seconds = value ?? fallback;
  if (!Number.isInteger(seconds) || seconds < 1 || seconds > max) {
    throw new ConfigurationError(
      `${name}: expected a whole number of seconds between 1 and ${max}, got ${String(value)}.`,
      { option: name },
    );
  }
  return seconds;
}

/** A count (`value`, or `fallback` when absent), at least `min`. */
export function count(name: string, value: number | undefined, fallback: number, min = 1): number {
  const n = value ?? fallback;
  if (!Number.isInteger(n) || n < min) {
    const expected = min === 0 ? 'a whole number, 0 or more' : 'a positive whole number';
    throw new ConfigurationError(`${name}: expected ${expected}, got ${String(value)}.`, { option: name });
  }
  return n;
}
