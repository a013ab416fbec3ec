import type { GatehouseStorage } from '../types.js';
import { kvConsentStore } from './consents.js';
import { kvRateLimitStore } from './rate-limits.js';
import { type KvReplayStoreOptions, kvReplayStore } from './replay.js';
import { kvSessionStore } from './sessions.js';
import type { ConsentStore, RateLimitStore, ReplayStore, SessionStore } from './state-stores.js';

/** The stores Gatehouse builds on an instance's key-value store. */
export interface KeyValueStateStores {
  readonly sessions: SessionStore;
  readonly consents: ConsentStore;
  readonly rateLimits: RateLimitStore;
  readonly replay: ReplayStore;
}

/** Options of {@link stateStores}. */
export type StateStoresOptions = KvReplayStoreOptions;

/**
 * Sessions, consents, rate limits and replay ids of one instance, on its `kv` (host contract v3):
 * the one implementation of each, whatever engine (or host database) holds the keys.
 */
export function stateStores(
  storage: Pick<GatehouseStorage, 'kv'>,
  options: StateStoresOptions = {},
): KeyValueStateStores {
  return {
    sessions: kvSessionStore(storage.kv),
    consents: kvConsentStore(storage.kv),
    rateLimits: kvRateLimitStore(storage.kv),
    replay: kvReplayStore(storage.kv, options),
  };
}
