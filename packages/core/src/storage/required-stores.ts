import { ConfigurationError } from '../errors.js';
import { editDistance } from '../unknown-options.js';
import type { GatehouseStorage } from './types.js';

/** The stores of one instance (every key of {@link GatehouseStorage} but `clear`), in contract order. */
export const STORE_NAMES = ['grants', 'clients', 'kv'] as const;

/**
 * Stores of host contract v2 that Gatehouse now builds on `kv` itself. Given, they would be
 * ignored, and the host's sessions, consents, counters and replay ids silently left behind in its
 * old tables: they are refused with a pointer to the migration instead.
 */
export const RETIRED_STORES = ['sessions', 'consents', 'rateLimits', 'replay'] as const;

/** One instance's stores as a host passes them: all of them; `clear` is for tests and optional. */
export type InstanceStorage = Omit<GatehouseStorage, 'clear'> & Partial<Pick<GatehouseStorage, 'clear'>>;

/**
 * The store names missing from `stores` (absent, or not an object), each with the given key that
 * looks like a misspelling of it (`grant` for `grants`, `client` for `clients`), if any.
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
  refuseRetiredStores(stores, what);
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

/**
 * Refuses the stores of host contract v2 ({@link RETIRED_STORES}): since v3 Gatehouse keeps that
 * state in `kv`, and an old store given beside it would be ignored without a word.
 */
export function refuseRetiredStores(stores: object, what: string): void {
  const given = stores as Record<string, unknown>;
  const retired = RETIRED_STORES.filter((name) => given[name] !== undefined);
  if (retired.length === 0) return;
  throw new ConfigurationError(
    `${what}: ${retired.join(', ')} ${retired.length === 1 ? 'is no longer a store of its own' : 'are no longer stores of their own'} (host contract v3): Gatehouse keeps sessions, consents, rate limits and replay ids in \`kv\`. Remove ${retired.length === 1 ? 'it' : 'them'}, and move existing records with the migration of docs/storage.md ("Upgrading from contract v2").`,
    { code: 'ERR_CONFIG_UNKNOWN_OPTION', option: 'storage' },
  );
}

function isStore(value: unknown): boolean {
  return typeof value === 'object' && value !== null;
}

/** Case-insensitive edit distance 1 (2 for names of 5 characters and more): `grant`, `Clients`. */
function looksLike(key: string, name: string): boolean {
  return editDistance(key.toLowerCase(), name.toLowerCase()) <= (name.length >= 5 ? 2 : 1);
}
