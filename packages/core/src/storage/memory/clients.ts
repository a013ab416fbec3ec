import { UsageError } from '../../errors.js';
import { markTrusted } from '../guard.js';
import type { ClientRecord, ClientStore } from '../types.js';

/**
 * A {@link ClientStore} over a fixed list of clients (configuration-defined clients, demos, tests).
 * Each record's fields are checked when it is looked up, like any host store's; a record without a
 * usable `id` could never be found, so it is refused here, naming its index.
 */
export function memoryClientStore(clients: readonly ClientRecord[]): ClientStore {
  if (!Array.isArray(clients)) {
    throw new UsageError(
      'memoryClientStore: expects an array of client records.',
      'ERR_INVALID_ARGUMENT',
      'clients',
    );
  }
  const byId = new Map<string, ClientRecord>();
  clients.forEach((client, index) => {
    const id = (client as { id?: unknown } | null)?.id;
    if (typeof id !== 'string' || id === '') {
      const spelt = ['clientId', 'client_id'].find(
        (name) => typeof (client as Record<string, unknown>)?.[name] === 'string',
      );
      throw new UsageError(
        `memoryClientStore: clients[${index}] has no string "id"${spelt ? ` (did you mean "id" instead of "${spelt}"?)` : ''}.`,
        'ERR_INVALID_ARGUMENT',
        `clients[${index}].id`,
      );
    }
    if (byId.has(id)) {
      throw new UsageError(
        `memoryClientStore: clients[${index}] repeats the id ${JSON.stringify(id)}.`,
        'ERR_INVALID_ARGUMENT',
        `clients[${index}].id`,
      );
    }
    byId.set(id, client);
  });
  // Every client's registered origins, for ClientStore.isOriginAllowed (exact string equality).
  const origins = new Set(clients.flatMap((client) => client.allowedOrigins ?? []));
  // The records themselves, for checks at construction (`securityProfile: 'fapi2-strict'`).
  return withHostClientRecords(
    clients,
    markTrusted({
      async findClient(clientId) {
        return byId.get(clientId) ?? null;
      },
      async isOriginAllowed(origin) {
        return origins.has(origin);
      },
    }),
  );
}

const HOST_CLIENT_RECORDS = Symbol('gatehouse.hostClientRecords');

/** Attaches the records a memory store was built from (not enumerable: the store's shape is unchanged). */
function withHostClientRecords(records: readonly ClientRecord[], store: ClientStore): ClientStore {
  Object.defineProperty(store, HOST_CLIENT_RECORDS, { value: records });
  return store;
}

/** The records of a `memoryClientStore`, or `undefined` for any other store (which cannot be listed). */
export function hostClientRecords(store: unknown): readonly ClientRecord[] | undefined {
  if (typeof store !== 'object' || store === null) return undefined;
  return (store as { [HOST_CLIENT_RECORDS]?: readonly ClientRecord[] })[HOST_CLIENT_RECORDS];
}
