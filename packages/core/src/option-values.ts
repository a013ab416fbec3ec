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
