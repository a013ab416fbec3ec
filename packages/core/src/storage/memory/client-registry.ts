import { markTrusted } from '../guard.js';
import type { ClientRegistry, RegisteredClient } from '../types.js';
import type { Clearable } from './clearable.js';
import { ExpiringMap } from './expiring-map.js';
import { StoreFullError } from './key-value.js';

/** Options of {@link memoryClientRegistry}. */
export interface MemoryClientRegistryOptions {
  /** Most registrations kept at once; a new one beyond it is refused (503). Default 10,000. */
  readonly maxClients?: number;
}

interface Entry {
  readonly registration: RegisteredClient;
  /** The registration's `expiresAt`, or `Infinity` while it is kept until deleted. */
  readonly expiresAt: number;
}

/**
 * In-memory {@link ClientRegistry}: the embedded default, for one process. Bounded, because
 * registration endpoints may be open to anyone (RFC 7591 §3).
 */
export function memoryClientRegistry(options: MemoryClientRegistryOptions = {}): ClientRegistry & Clearable {
  const maxClients = options.maxClients ?? 10_000;
  const clients = new ExpiringMap<Entry>();
  const entry = (registration: RegisteredClient): Entry => ({
    registration,
    expiresAt: registration.expiresAt ?? Number.POSITIVE_INFINITY,
  });
  return markTrusted({
    clear() {
      clients.clear();
    },
    async saveClient(registration) {
      const id = registration.client.id;
      if (clients.size >= maxClients && clients.get(id, registration.registeredAt) === undefined) {
        clients.sweepAll(registration.registeredAt);
        if (clients.size >= maxClients) throw new StoreFullError('client registry');
      }
      clients.set(id, entry(registration), registration.registeredAt);
    },
    async findClient(clientId, now) {
      return clients.get(clientId, now)?.registration ?? null;
    },
    async touchClient(clientId, expiresAt, now) {
      const current = clients.get(clientId, now);
      if (!current) return false;
      const { expiresAt: _, ...rest } = current.registration;
      clients.set(clientId, entry(expiresAt === undefined ? rest : { ...rest, expiresAt }), now);
      return true;
    },
    async deleteClient(clientId) {
      clients.delete(clientId);
    },
  });
}
