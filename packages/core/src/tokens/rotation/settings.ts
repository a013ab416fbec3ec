import { ConfigurationError } from '../../errors.js';
import type { KeyRotationOptions } from '../../options.js';
import { type Milliseconds, type Seconds, secondsToMs } from '../../time.js';
import { SIGNING_ALGORITHMS, type SigningAlgorithm } from '../keys.js';
import { keyEncryptionKeyBytes } from './key-encryption.js';

/** `keyRotation`, checked: durations in milliseconds. */
export interface KeyRotationSettings {
  /** The KEK that encrypts, then the earlier ones that only decrypt (raw bytes, checked). */
  readonly keyEncryptionKeys: readonly Uint8Array[];
  readonly rotateEveryMs: Milliseconds;
  readonly leadTimeMs: Milliseconds;
  readonly retainForMs: Milliseconds;
  readonly refreshMs: Milliseconds;
  /** The algorithms whose keys are stored and rotated. */
  readonly algorithms: readonly SigningAlgorithm[];
}

/** The longest duration accepted: a year and a day (a key record lives a few years, see stored-keys.ts). */
const MAX_SECONDS = 366 * 86_400;

function seconds(option: string, value: number | undefined, fallback: Seconds, min = 1): Seconds {
  const given = value ?? fallback;
  if (!Number.isInteger(given) || given < min || given > MAX_SECONDS)
    throw new ConfigurationError(
      `${option}: expected a whole number of seconds between ${min} and ${MAX_SECONDS}, got ${String(value)}.`,
      { code: 'ERR_CONFIG_INVALID_OPTION', option },
    );
  return given;
}

/**
 * Checks `keyRotation`. `algorithm` is the access tokens' one; `signedLifetimes` the lifetimes
 * (seconds) of what the instance signs: a retired key must verify the longest of them, the least
 * `retainFor` accepted.
 */
export function keyRotationSettings(
  given: KeyRotationOptions | undefined,
  algorithm: SigningAlgorithm,
  signedLifetimes: readonly Seconds[],
): KeyRotationSettings | undefined {
  if (given === undefined) return undefined;
  const maxTokenLifetime = Math.max(0, ...signedLifetimes);
  if (typeof given !== 'object' || given === null)
    throw new ConfigurationError('keyRotation: expected an object ({ keyEncryptionKey, … }).', {
      code: 'ERR_CONFIG_INVALID_OPTION',
      option: 'keyRotation',
    });
  const previous = given.previousKeyEncryptionKeys ?? [];
  if (!Array.isArray(previous))
    throw new ConfigurationError('keyRotation.previousKeyEncryptionKeys: expected an array.', {
      code: 'ERR_CONFIG_INVALID_OPTION',
      option: 'keyRotation.previousKeyEncryptionKeys',
    });
  const keyEncryptionKeys = [
    keyEncryptionKeyBytes(given.keyEncryptionKey, 'keyRotation.keyEncryptionKey'),
    ...previous.map((kek, index) =>
      keyEncryptionKeyBytes(kek, `keyRotation.previousKeyEncryptionKeys[${index}]`),
    ),
  ];
  const rotateEvery = seconds('keyRotation.rotateEvery', given.rotateEvery, 30 * 86_400);
  const leadTime = seconds('keyRotation.leadTime', given.leadTime, 86_400);
  const retainFor = seconds('keyRotation.retainFor', given.retainFor, maxTokenLifetime);
  if (retainFor < maxTokenLifetime)
    throw new ConfigurationError(
      `keyRotation.retainFor: ${retainFor} s is shorter than the longest token lifetime (${maxTokenLifetime} s): tokens signed by a retired key would stop verifying before they expire.`,
      { code: 'ERR_CONFIG_CONFLICTING_OPTIONS', option: 'keyRotation.retainFor' },
    );
  const refresh = seconds('keyRotation.refreshInterval', given.refreshInterval, Math.min(30, leadTime));
  if (refresh > leadTime)
    throw new ConfigurationError(
      `keyRotation.refreshInterval: ${refresh} s is longer than leadTime (${leadTime} s).`,
      { code: 'ERR_CONFIG_CONFLICTING_OPTIONS', option: 'keyRotation.refreshInterval' },
    );
  const algorithms = given.algorithms ?? [...new Set<SigningAlgorithm>([algorithm, 'RS256'])];
  if (
    !Array.isArray(algorithms) ||
    algorithms.length === 0 ||
    algorithms.some((name) => !SIGNING_ALGORITHMS.includes(name)) ||
    new Set(algorithms).size !== algorithms.length
  )
    throw new ConfigurationError(
      `keyRotation.algorithms: expected distinct algorithms of ${SIGNING_ALGORITHMS.join(', ')}.`,
      { code: 'ERR_CONFIG_INVALID_OPTION', option: 'keyRotation.algorithms' },
    );
  return {
    keyEncryptionKeys,
    rotateEveryMs: secondsToMs(rotateEvery),
    leadTimeMs: secondsToMs(leadTime),
    retainForMs: secondsToMs(retainFor),
    refreshMs: secondsToMs(refresh),
    algorithms: [...algorithms],
  };
}
