/**
 * `@gatehousejs/core/testing`: the storage conformance suite, for engines shipped with Gatehouse and
 * for a host's own. Runner-agnostic: pass your runner's `describe`, `it`, `expect`.
 * @packageDocumentation
 */
export type {
  ConformanceAssertion,
  ConformanceTestApi,
  ConformanceTestContext,
  StorageConformanceTarget,
} from './conformance-api.js';
export {
  type ClientStoreConformanceTarget,
  runClientStoreConformance,
  runUserStoreConformance,
  type UserStoreConformanceTarget,
} from './host-store-conformance.js';
export { runStorageConformance } from './storage-conformance.js';
