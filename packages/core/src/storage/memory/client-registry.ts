import { markTrusted } from '../guard.js';
import { StoreFullError } from '../store-full.js';
import type { ClientRegistry, RegisteredClient } from '../types.js';
import type { Clearable } from './clearable.js';
import { ExpiringMap } from './expiring-map.js';
import { PartitionLedger } from './partition-ledger.js';

/** Options of {@link memoryClientRegistry}. */
export interface MemoryClientRegistryOptions {
  /**
   * Most registrations kept at once, whatever `saveClient` is told; a new one beyond it is
   * fair-shared like one beyond `maxClients` (the heaviest partition makes room, or the
   * registration is refused with {@link StoreFullError}, answered 503). Default 10,000.
   */
  readonly maxClients?: number;
}

interface Entry {
  readonly registration: RegisteredClient;
  /** The registration's `expiresAt`, or `Infinity` while it is kept until deleted. */
  readonly expiresAt: number;
  /** Who pays for it (`ClientRegistryLimits.partition`); `undefined`: no partition, never evicted. */
  readonly partition: string | undefined;
}

/**
 * In-memory {@link ClientRegistry}: the embedded default, for one process. Bounded, because
 * registration endpoints may be open to anyone (RFC 7591 §3); a full registry makes room from the
 * partition holding the most registrations (fair shares, issue 41): two ledgers, every
 * partitioned registration and the never-used ones, each oldest first.
 */
export function memoryClientRegistry(options: MemoryClientRegistryOptions = {}): ClientRegistry & Clearable {
  const maxClients = options.maxClients ?? 10_000;
  // Nothing is ever closed here: an evicted registration is gone, not a count to remember.
  const held = new PartitionLedger(0);
  const unused = new PartitionLedger(0);
  let unpartitioned = 0;
  const forget = (id: string, entry: Entry) => {
    if (entry.partition === undefined) {
      unpartitioned--;
      return;
    }
    held.remove(entry.partition, id);
    unused.remove(entry.partition, id);
  };
  const clients = new ExpiringMap<Entry>(forget);
  const store = (id: string, registration: RegisteredClient, partition: string | undefined, now: number) => {
    const previous = clients.get(id, now);
    if (previous !== undefined) forget(id, previous);
    const entry: Entry = {
      registration,
      expiresAt: registration.expiresAt ?? Number.POSITIVE_INFINITY,
      partition,
    };
    clients.set(id, entry, now);
    if (partition === undefined) unpartitioned++;
    else {
      held.add(partition, id);
      if (registration.usedAt === undefined) unused.add(partition, id);
    }
  };
  /** The registration to evict for a new one of `partition`, or `undefined` when it is over its share. */
  const victimFor = (partition: string | undefined): string | undefined => {
    const heaviest = held.heaviest();
    if (heaviest === undefined) return undefined;
    const mine = partition === undefined ? unpartitioned : held.count(partition);
    if (mine >= held.count(heaviest)) return undefined;
    return unused.oldest(heaviest) ?? held.oldest(heaviest);
  };
  return markTrusted({
    clear() {
      clients.clear();
      held.clear();
      unused.clear();
      unpartitioned = 0;
    },
    async saveClient(registration, limits) {
      const id = registration.client.id;
      const now = registration.registeredAt;
      const cap = Math.min(maxClients, limits?.maxClients ?? maxClients);
      // An empty name is no partition, as on every engine.
      const partition = limits?.partition || undefined;
      let evictedClientId: string | undefined;
      if (clients.size >= cap && clients.get(id, now) === undefined) {
        clients.sweepAll(now);
        if (clients.size >= cap) {
          evictedClientId = victimFor(partition);
          if (evictedClientId === undefined)
            throw new StoreFullError('client registry', `at most ${cap} registrations`);
          forget(evictedClientId, clients.get(evictedClientId, now)!);
          clients.delete(evictedClientId);
        }
      }
      store(id, registration, partition, now);
      return evictedClientId === undefined ? {} : { evictedClientId };
    },
    async findClient(clientId, now) {
      return clients.get(clientId, now)?.registration ?? null;
    },
    async touchClient(clientId, expiresAt, now) {
      const current = clients.get(clientId, now);
      if (!current) return false;
      const { expiresAt: _, ...rest } = current.registration;
      const used = { ...rest, usedAt: now };
      const registration = expiresAt === undefined ? used : { ...used, expiresAt };
      // Rewritten in place: a use leaves the registration where it was among its partition's (by age).
      clients.set(
        clientId,
        { ...current, registration, expiresAt: expiresAt ?? Number.POSITIVE_INFINITY },
        now,
      );
      if (current.partition !== undefined) unused.remove(current.partition, clientId);
      return true;
    },
    async listClients(now, limit) {
      const live: RegisteredClient[] = [];
      for (const { registration, expiresAt } of clients.values())
        if (expiresAt > now) live.push(registration);
      return live
        .sort((a, b) => b.registeredAt - a.registeredAt || (a.client.id < b.client.id ? -1 : 1))
        .slice(0, limit);
    },
    async deleteClient(clientId) {
      const current = clients.get(clientId, Number.NEGATIVE_INFINITY);
      if (current !== undefined) forget(clientId, current);
      clients.delete(clientId);
    },
  });
}
