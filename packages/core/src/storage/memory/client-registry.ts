import { markTrusted } from '../guard.js';
import { StoreFullError } from '../store-full.js';
import type { ClientRegistry, RegisteredClient } from '../types.js';
import type { Clearable } from './clearable.js';
import { ExpiringMap } from './expiring-map.js';

/** Options of {@link memoryClientRegistry}. */
export interface MemoryClientRegistryOptions {
  /**
   * Most registrations kept at once, whatever `saveClient` is told; a new one beyond it is refused
   * with {@link StoreFullError} (answered 503). Default 10,000.
   */
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
    async saveClient(registration, limits) {
      const id = registration.client.id;
      const cap = Math.min(maxClients, limits?.maxClients ?? maxClients);
      if (clients.size >= cap && clients.get(id, registration.registeredAt) === undefined) {
        clients.sweepAll(registration.registeredAt);
        if (clients.size >= cap) throw new StoreFullError('client registry', `at most ${cap} registrations`);
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
