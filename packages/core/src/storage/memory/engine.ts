import { checkInstanceId } from '../instance-id.js';
import type { GatehouseStorage, StorageEngine } from '../types.js';
import { memoryClientRegistry } from './client-registry.js';
import { memoryGrantStore } from './grants.js';
import { memoryKeyValueStore } from './key-value.js';

/**
 * One instance's state in memory: every store of the contract (grants, registered clients, the
 * key-value store Gatehouse keeps sessions, consents, rate limits and replay ids in), for one
 * process. The default of `createGatehouse` when no storage is given.
 */
export function memoryStorage(): GatehouseStorage {
  const stores = {
    grants: memoryGrantStore(),
    clients: memoryClientRegistry(),
    kv: memoryKeyValueStore(),
  };
  return {
    ...stores,
    async clear() {
      for (const store of Object.values(stores)) store.clear();
    },
  };
}

/**
 * A memory engine shared by several instances of one process (issue 13): each instance id gets
 * its own {@link memoryStorage}, so instances share no map at all; asking twice for one id returns
 * the same view.
 */
export function memoryEngine(): StorageEngine {
  const views = new Map<string, GatehouseStorage>();
  return {
    instance(instanceId) {
      const id = checkInstanceId(instanceId);
      let view = views.get(id);
      if (!view) {
        view = memoryStorage();
        views.set(id, view);
      }
      return view;
    },
  };
}
