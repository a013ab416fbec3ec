import { ConfigurationError } from '../../errors.js';
import { isStorageEngine } from '../instance-id.js';
import { missingStores, refuseRetiredStores, STORE_NAMES } from '../required-stores.js';
import type { GatehouseStorage } from '../types.js';
import { memoryStorage } from './engine.js';

/**
 * Completes some of an instance's stores with in-memory ones for the rest: the explicit way to say
 * "memory for the rest" (`createGatehouse` refuses a partial `storage`). Memory stores belong to
 * this process alone, so use it only where one process serves the instance (a demo, tests, a
 * single-process deployment): a replay id, a revocation or a session kept in memory is unknown to
 * every other process. A key that looks like a misspelt store name (`grant`, `client`) is
 * refused rather than left to memory.
 *
 * `clear()` clears the given stores (when they have `clear`) and the memory ones.
 *
 * @example
 * ```ts
 * createGatehouse({ ...options, storage: withMemoryFallback({ grants: myGrantStore }) });
 * ```
 */
export function withMemoryFallback(stores: Partial<GatehouseStorage>): GatehouseStorage {
  if (typeof stores !== 'object' || stores === null || isStorageEngine(stores)) {
    throw new ConfigurationError(
      'withMemoryFallback: expected one instance’s stores (an object such as { grants }), not a storage engine.',
      { code: 'ERR_CONFIG_INVALID_OPTION', option: 'storage' },
    );
  }
  refuseRetiredStores(stores, 'withMemoryFallback');
  const misspelt = missingStores(stores).filter((store) => store.misspelt !== undefined);
  if (misspelt.length > 0) {
    throw new ConfigurationError(
      `withMemoryFallback: ${misspelt.map(({ name, misspelt }) => `"${misspelt}" is not a store (did you mean "${name}"?)`).join('; ')}.`,
      { code: 'ERR_CONFIG_UNKNOWN_OPTION', option: 'storage' },
    );
  }
  const memory = memoryStorage();
  const given = Object.fromEntries(
    STORE_NAMES.filter((name) => typeof stores[name] === 'object' && stores[name] !== null).map((name) => [
      name,
      stores[name],
    ]),
  );
  return {
    ...memory,
    ...given,
    async clear() {
      await stores.clear?.();
      await memory.clear();
    },
  };
}
