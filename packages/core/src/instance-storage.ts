import type { InstanceStores } from './context.js';
import { ConfigurationError } from './errors.js';
import { count } from './option-values.js';
import type { GatehouseOptions } from './options.js';
import { mirroredGrantStore, RevocationMirror } from './revocation/revocation-mirror.js';
import { guardStore } from './storage/guard.js';
import { checkInstanceId, isStorageEngine } from './storage/instance-id.js';
import { stateStores } from './storage/kv/stores.js';
import { memoryStorage } from './storage/memory/engine.js';
import { type InstanceStorage, requireAllStores } from './storage/required-stores.js';
import type { GrantStore } from './storage/types.js';
import type { Telemetry } from './telemetry/telemetry.js';
import { tracedStore } from './telemetry/traced-store.js';

/**
 * Guards a host store (a failing or hanging lookup becomes `StorageUnavailableError`, a 503, never
 * a 500 or a stuck request) and traces it when telemetry is on.
 */
export function hostStoreGuard(timeoutMs: number, telemetry: Telemetry | undefined) {
  return <T extends object>(store: T, name: string): T => {
    const guarded = guardStore(store, timeoutMs);
    return telemetry ? tracedStore(guarded, name, telemetry) : guarded;
  };
}
/**
 * The instance's stores, guarded: the view of `instanceId` (default: the issuer) when `storage` is
 * an engine, else the stores given, all of them (`withMemoryFallback` completes a partial set
 * explicitly); none given means this instance alone, in memory.
 */
export function instanceStorage(
  options: GatehouseOptions,
  issuer: string,
  timeoutMs: number,
  telemetry: Telemetry | undefined,
): { storage: InstanceStores; revocationMirror: RevocationMirror | undefined } {
  const given: object = options.storage ?? memoryStorage();
  if (typeof given !== 'object' || given === null) {
    throw new ConfigurationError(
      'storage: expected a storage engine or an object of stores (grants, clients, kv).',
      { code: 'ERR_CONFIG_INVALID_OPTION', option: 'storage' },
    );
  }
  let view: InstanceStorage;
  if (isStorageEngine(given)) {
    let instanceId: string;
    try {
      instanceId = checkInstanceId(options.instanceId ?? issuer);
    } catch (error) {
      throw new ConfigurationError((error as Error).message, { option: 'instanceId', cause: error });
    }
    view = given.instance(instanceId);
    requireAllStores(view, `storage: the engine's view of instance "${instanceId}"`);
  } else {
    if (options.instanceId !== undefined) {
      throw new ConfigurationError(
        'instanceId: only applies when `storage` is a storage engine (with `instance()`); these stores already belong to one instance.',
        { code: 'ERR_CONFIG_CONFLICTING_OPTIONS', option: 'instanceId' },
      );
    }
    requireAllStores(given, 'storage');
    view = given as InstanceStorage;
  }
  if (
    (typeof view.grants.revokeSubject === 'function') !==
    (typeof view.grants.subjectRevokedAt === 'function')
  ) {
    throw new ConfigurationError(
      'storage.grants: revokeSubject and subjectRevokedAt come together (a user mark is written by one and read by the other).',
      { code: 'ERR_CONFIG_STORE_CAPABILITY', option: 'storage.grants' },
    );
  }
  let grants = guardStore(view.grants, timeoutMs);
  const revocationMirror = pushedRevocations(options, view.grants);
  if (revocationMirror) {
    grants = mirroredGrantStore(grants, revocationMirror);
    if (telemetry) revocationMirror.onLag = (ms) => telemetry.revocationLag(ms);
  }
  const store = <T extends object>(given: T, name: string): T => {
    const guarded = guardStore(given, timeoutMs);
    return telemetry ? tracedStore(guarded, name, telemetry) : guarded;
  };
  // Sessions, consents, rate limits and replay ids are Gatehouse's own, on the guarded `kv`.
  const kv = store(view.kv, 'kv');
  return {
    storage: {
      grants: telemetry ? tracedStore(grants, 'grants', telemetry) : grants,
      clients: store(view.clients, 'registeredClients'),
      kv,
      ...stateStores({ kv }),
    },
    revocationMirror,
  };
}
/**
 * The revocation mirror of `pushedRevocations`, subscribed to the unguarded grant store. Left out,
 * the option follows the store: on for an engine shared by processes that asks for it
 * (`pushedRevocationsByDefault`, the Redis and PostgreSQL engines), off otherwise.
 */
function pushedRevocations(options: GatehouseOptions, grants: GrantStore): RevocationMirror | undefined {
  const given =
    options.pushedRevocations ??
    (grants.pushedRevocationsByDefault === true && typeof grants.watchRevocations === 'function');
  if (given === false) return undefined;
  if (typeof grants.watchRevocations !== 'function') {
    throw new ConfigurationError(
      'pushedRevocations: the grant store cannot push revocations (it has no watchRevocations); remove the option to check each request against the store.',
      { code: 'ERR_CONFIG_STORE_CAPABILITY', option: 'pushedRevocations' },
    );
  }
  const settings = given === true ? {} : given;
  const maxLagMs = count('pushedRevocations.maxLagMs', settings.maxLagMs, 1000);
  if (maxLagMs < 50 || maxLagMs > 60_000)
    throw new ConfigurationError('pushedRevocations.maxLagMs: expected 50 to 60000 ms.', {
      option: 'pushedRevocations.maxLagMs',
    });
  const maxEntries = count('pushedRevocations.maxEntries', settings.maxEntries, 1_000_000);
  return new RevocationMirror(
    (listener) => grants.watchRevocations!(listener),
    { maxLagMs, maxEntries },
    options.logger ?? console,
    options.now ?? Date.now,
  );
}
