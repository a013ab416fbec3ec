/**
 * Instance ids: the stable name of one instance's records inside a shared {@link StorageEngine}.
 * Engines make it part of every key, so it must be safe in a Redis key (no braces: they delimit
 * Cluster hash tags, and no whitespace) and in a SQL text column, and short enough to repeat in
 * every key.
 */

import { UsageError } from '../errors.js';
import type { StorageEngine } from './types.js';

/**
 * The instance id of the single-instance constructors (`redisStorage`, `postgresStorage`,
 * `memoryStorage`), and the id round-1 records are migrated to, so that they stay readable.
 */
export const DEFAULT_INSTANCE_ID = 'default';

const MAX_INSTANCE_ID_LENGTH = 256;

/**
 * Returns `instanceId` if it is usable (1 to 256 characters, no whitespace, control characters or
 * braces), else throws `UsageError` (a `TypeError`) naming the problem. Engines call it in `instance()`.
 */
export function checkInstanceId(instanceId: unknown): string {
  if (typeof instanceId !== 'string' || instanceId.length === 0) {
    throw new UsageError('instanceId: expected a non-empty string.', 'ERR_INVALID_ARGUMENT', 'instanceId');
  }
  if (instanceId.length > MAX_INSTANCE_ID_LENGTH) {
    throw new UsageError(
      `instanceId: at most ${MAX_INSTANCE_ID_LENGTH} characters, got ${instanceId.length}.`,
      'ERR_INVALID_ARGUMENT',
      'instanceId',
    );
  }
  // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what it refuses.
  if (/[\s{}\u0000-\u001f\u007f]/.test(instanceId)) {
    throw new UsageError(
      `instanceId: "${instanceId}" contains whitespace, a control character or a brace.`,
      'ERR_INVALID_ARGUMENT',
      'instanceId',
    );
  }
  return instanceId;
}

/** Whether `storage` is an engine of many instances rather than one instance's stores. */
export function isStorageEngine(storage: object): storage is StorageEngine {
  return typeof (storage as Partial<StorageEngine>).instance === 'function';
}
