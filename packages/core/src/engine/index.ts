/**
 * `@gatehousejs/core/engine`: for authors of storage engines (`@gatehousejs/redis` and
 * `@gatehousejs/postgres` are built on it), not for applications. The whole storage contract (every
 * store interface and record type, {@link KeyValueStore} among them), the memory engine's stores one
 * by one (to compose or wrap), the stores Gatehouse builds on the key-value store (sessions,
 * consents, rate limits, replay ids, and the keys they are kept under, for upgrade migrations), and the helpers every engine shares so that none keeps its own copy:
 * instance ids, the full-store error, the rounding rule for stored instants, the digest under which
 * codes and tokens are stored, subjects, the revocation channel's message format, and the rules of
 * the grant store's one-step exchanges (their checks, the records they store, and the exchange in
 * two calls for a store without them).
 *
 * The conformance kit that proves an engine keeps the contract is `@gatehousejs/core/testing`, kept
 * apart so that an engine's runtime import never loads the kit.
 * Runtime-neutral, like the main entry.
 * @packageDocumentation
 */
export type { ErrorCodeOf } from '../error-codes.js';
export {
  decodeRevocationMessage,
  type RevocationFanout,
  type RevocationMessage,
  revocationEvent,
  revocationFanout,
  revocationProbeMessage,
} from '../revocation/revocation-channel.js';
export {
  codeRefusal,
  exchangeCodeByLookup,
  exchangeRefreshTokenByLookup,
  offlineAccessGranted,
  refreshTokenFromCode,
  refreshTokenRefusal,
  rotatedRefreshToken,
} from '../storage/grant-exchange.js';
export { checkInstanceId, DEFAULT_INSTANCE_ID } from '../storage/instance-id.js';
export { kvConsentStore } from '../storage/kv/consents.js';
export { STATE_KEYS, type StateKeys } from '../storage/kv/keys.js';
export { kvRateLimitStore } from '../storage/kv/rate-limits.js';
export { type KvReplayStoreOptions, kvReplayStore } from '../storage/kv/replay.js';
export { kvSessionStore } from '../storage/kv/sessions.js';
export type { ConsentStore, RateLimitStore, ReplayStore, SessionStore } from '../storage/kv/state-stores.js';
export { type KeyValueStateStores, type StateStoresOptions, stateStores } from '../storage/kv/stores.js';
export type { Clearable } from '../storage/memory/clearable.js';
export { type MemoryClientRegistryOptions, memoryClientRegistry } from '../storage/memory/client-registry.js';
export { memoryGrantStore } from '../storage/memory/grants.js';
export { type MemoryKeyValueStoreOptions, memoryKeyValueStore } from '../storage/memory/key-value.js';
export { isStoreFull, StoreFullError } from '../storage/store-full.js';
export { clientSubject, subjectId, userSubject } from '../storage/subject.js';
export type * from '../storage/types.js';
export {
  addSeconds,
  type EpochMs,
  type EpochSeconds,
  fromEpochSeconds,
  type Milliseconds,
  type Seconds,
  secondsToMs,
  secondsUntil,
  toEpochSeconds,
  wholeExpiry,
  wholeInstant,
} from '../time.js';
export { hashSecret } from '../tokens/secrets.js';
