import { ConfigurationError } from '../errors.js';
import { editDistance } from '../unknown-options.js';
import type { GatehouseStorage } from './types.js';

/** The stores of one instance (every key of {@link GatehouseStorage} but `clear`), in contract order. */
export const STORE_NAMES = [
  'grants',
  'sessions',
  'consents',
  'rateLimits',
  'clients',
  'replay',
  'kv',
] as const;

/** One instance's stores as a host passes them: all of them; `clear` is for tests and optional. */
export type InstanceStorage = Omit<GatehouseStorage, 'clear'> & Partial<Pick<GatehouseStorage, 'clear'>>;

/**
 * The store names missing from `stores` (absent, or not an object), each with the given key that
 * looks like a misspelling of it (`grant` for `grants`, `ratelimits` for `rateLimits`), if any.
 */
export function missingStores(stores: object): { name: string; misspelt?: string }[] {
  const given = stores as Record<string, unknown>;
  const others = Object.keys(given).filter((key) => !(STORE_NAMES as readonly string[]).includes(key));
  return STORE_NAMES.filter((name) => !isStore(given[name])).map((name) => {
    const misspelt = others.find((key) => looksLike(key, name));
    return misspelt === undefined ? { name } : { name, misspelt };
  });
}

/**
 * Refuses stores with a missing or misspelt member: a missing store silently kept in this process's
 * memory is how replay ids, revocations and sessions end up per process in production (issue 28).
 * `what` names the stores in the message (`storage`, or an engine's view).
 */
export function requireAllStores(stores: object, what: string): void {
  const missing = missingStores(stores);
  if (missing.length === 0) return;
  const names = missing.map(({ name, misspelt }) =>
    misspelt === undefined ? name : `${name} (given "${misspelt}": misspelt?)`,
  );
  throw new ConfigurationError(
    `${what}: missing ${names.join(', ')}. Give every store (${STORE_NAMES.join(', ')}), a storage engine, or, to keep the missing ones in this process's memory, withMemoryFallback(stores).`,
    { code: 'ERR_CONFIG_MISSING_OPTION', option: 'storage' },
  );
}

function isStore(value: unknown): boolean {
  return typeof value === 'object' && value !== null;
}

/** Case-insensitive edit distance 1 (2 for names of 5 characters and more): `grant`, `Sessions`. */
function looksLike(key: string, name: string): boolean {
  return editDistance(key.toLowerCase(), name.toLowerCase()) <= (name.length >= 5 ? 2 : 1);
}
