import { markTrusted } from '../guard.js';
import type { ClientRecord, ClientStore } from '../types.js';

/** A {@link ClientStore} over a fixed list of clients (configuration-defined clients, demos, tests). */
export function memoryClientStore(clients: readonly ClientRecord[]): ClientStore {
  const byId = new Map(clients.map((client) => [client.id, client]));
  // Every client's registered origins, for ClientStore.isOriginAllowed (exact string equality).
  const origins = new Set(clients.flatMap((client) => client.allowedOrigins ?? []));
  return markTrusted({
    async findClient(clientId) {
      return byId.get(clientId) ?? null;
    },
    async isOriginAllowed(origin) {
      return origins.has(origin);
    },
  });
}
