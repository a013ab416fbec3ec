import { ConfigurationError } from '../errors.js';
import { editDistance } from '../unknown-options.js';
import type { ClientRegistry, GatehouseStorage, GrantStore, KeyValueStore } from './types.js';

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
 * Refuses stores with a missing or misspelt member (a missing store silently kept in this
 * process's memory is how replay ids, revocations and sessions end up per process in production),
 * and stores that lack a method ({@link requireStoreMethods}). `what` names the stores in the
 * message (`storage`, or an engine's view).
 */
export function requireAllStores(stores: object, what: string): void {
  refuseRetiredStores(stores, what);
  const missing = missingStores(stores);
  if (missing.length === 0) {
    requireStoreMethods(stores as InstanceStorage, what);
    return;
  }
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

/**
 * Every method of each store of the host contract (`storage/types.ts`), required and optional.
 * {@link methodsOf} fails to compile when a list leaves out a method of its interface.
 */
const STORE_METHODS = {
  grants: methodsOf<GrantStore>()(
    [
      'saveCode',
      'findCode',
      'redeemCode',
      'saveRefreshToken',
      'findRefreshToken',
      'rotateRefreshToken',
      'revokeGrant',
      'revokeAccessToken',
      'isRevoked',
    ],
    [
      'revokeSubject',
      'subjectRevokedAt',
      'listUserRefreshTokens',
      'watchRevocations',
      'exchangeCode',
      'exchangeRefreshToken',
    ],
  ),
  clients: methodsOf<ClientRegistry>()(
    ['saveClient', 'findClient', 'touchClient', 'deleteClient'],
    ['listClients'],
  ),
  kv: methodsOf<KeyValueStore>()(['get', 'set', 'add', 'take', 'swap', 'delete', 'increment'], []),
} as const;

/** The interface each store implements, for the messages. */
const INTERFACES = { grants: 'GrantStore', clients: 'ClientRegistry', kv: 'KeyValueStore' } as const;

/**
 * Refuses stores that lack a required method of their interface, or have a member of a method's
 * name that is not a function (a required one, or an optional one given): caught here, it would
 * otherwise be a `TypeError` and a 500 at the first request that calls it. Every such member is
 * named in the message; `option` is the first (`storage.grants.isRevoked`).
 */
function requireStoreMethods(stores: InstanceStorage, what: string): void {
  const problems: { path: string; text: string }[] = [];
  for (const name of STORE_NAMES) {
    const store = stores[name] as unknown as Record<string, unknown>;
    const { required, optional } = STORE_METHODS[name];
    for (const method of [...required, ...optional]) {
      const member = store[method];
      if (typeof member === 'function') continue;
      const isRequired = (required as readonly string[]).includes(method);
      if (member === undefined && !isRequired) continue;
      problems.push({
        path: `storage.${name}.${method}`,
        text: `${name}.${method} ${member === undefined ? 'is missing' : `is a ${member === null ? 'null' : typeof member}, not a function`} (${INTERFACES[name]}${isRequired ? '' : ', optional'})`,
      });
    }
  }
  if (problems.length === 0) return;
  throw new ConfigurationError(
    `${what}: ${problems.map((problem) => problem.text).join('; ')}. Every store implements its whole interface (docs/storage.md, "How many methods"); a partial store would fail with a TypeError at its first use.`,
    { code: 'ERR_CONFIG_STORE_METHOD', option: problems[0]!.path },
  );
}

/** The names of `T`'s methods that are not optional. */
type RequiredMethodOf<T> = {
  [K in keyof T]-?: object extends Pick<T, K>
    ? never
    : T[K] extends (...args: never[]) => unknown
      ? K
      : never;
}[keyof T] &
  string;

/** The names of `T`'s optional methods. */
type OptionalMethodOf<T> = {
  [K in keyof T]-?: object extends Pick<T, K>
    ? NonNullable<T[K]> extends (...args: never[]) => unknown
      ? K
      : never
    : never;
}[keyof T] &
  string;

/**
 * `T`'s required and optional methods as two lists, which must name every one of them: a method
 * left out is a compile error (`missing` names it).
 */
function methodsOf<T>() {
  return <const R extends readonly RequiredMethodOf<T>[], const O extends readonly OptionalMethodOf<T>[]>(
    required: R &
      ([Exclude<RequiredMethodOf<T>, R[number]>] extends [never]
        ? unknown
        : { missing: Exclude<RequiredMethodOf<T>, R[number]> }),
    optional: O &
      ([Exclude<OptionalMethodOf<T>, O[number]>] extends [never]
        ? unknown
        : { missing: Exclude<OptionalMethodOf<T>, O[number]> }),
  ) => ({ required: required as R, optional: optional as O });
}

function isStore(value: unknown): boolean {
  return typeof value === 'object' && value !== null;
}

/** Case-insensitive edit distance 1 (2 for names of 5 characters and more): `grant`, `Clients`. */
function looksLike(key: string, name: string): boolean {
  return editDistance(key.toLowerCase(), name.toLowerCase()) <= (name.length >= 5 ? 2 : 1);
}
