import { UsageError } from '../errors.js';
import { isStorageEngine } from '../storage/instance-id.js';
import { stateStores } from '../storage/kv/stores.js';
import type { GatehouseStorage, StorageEngine } from '../storage/types.js';
import { atomicityCases } from './atomicity-cases.js';
import { boundaryCases } from './boundary-cases.js';
import type {
  ConformanceTestApi,
  KitEngine,
  KitStorage,
  StorageConformanceTarget,
} from './conformance-api.js';
import { exchangeCases } from './exchange-cases.js';
import { grantStoreCases } from './grant-store-cases.js';
import { isolationCases } from './isolation-cases.js';
import { keyValueCases, keyValueIsolationCases } from './kv-cases.js';
import { pushedRevocationCases } from './pushed-revocation-cases.js';
import { recordFieldCases } from './record-field-cases.js';
import { freshId } from './records.js';
import { registryCases } from './registry-cases.js';
import { sessionStoreCases } from './session-store-cases.js';
import { skippingApi } from './skip.js';
import { subjectRevocationCases } from './subject-revocation-cases.js';
import { userGrantCases } from './user-grant-cases.js';

/** A view with the stores Gatehouse builds on its `kv`, as `createGatehouse` composes them. */
function withStateStores(view: GatehouseStorage): KitStorage {
  return {
    grants: view.grants,
    clients: view.clients,
    kv: view.kv,
    clear: () => view.clear(),
    ...stateStores(view),
  };
}

/**
 * Registers the storage conformance suite for one engine with the given test runner: round trips,
 * expiry (by moving the `now` argument, never by sleeping), revocation by grant, by jti and by user,
 * idempotency, fractional times and repeated saves, lossless optional fields (subjects, audience,
 * OpenID Connect attributes, `ext`), the client registry and the replay store, atomicity under
 * concurrency (by default 200 parallel redemptions of one code, 200 parallel rotations of one
 * refresh token and 200 parallel uses of one replay id, each with exactly one winner), the token
 * endpoint's one-step exchanges (their checks, refusals, stored records and single winner), the
 * key-value store (expiry, set-if-absent, single-use take and compare-and-set swap, each raced by
 * 200 callers with exactly one winner), and
 * isolation: two instances of one engine, with the same client and user ids, never see each
 * other's records, and `clear()` empties one instance only.
 *
 * Cases of an optional capability the engine lacks (user marks, a user's grants, `deleteConsent`,
 * pushed revocations) and the isolation cases of a target with `isolation: false` are reported as
 * skipped with the reason (vitest's `context.skip`), never as passed.
 *
 * Record times are based on the wall clock, so engines that hand expiries to a server (Redis TTLs,
 * SQL sweepers) keep the records for the duration of the suite.
 *
 * @example
 * ```ts
 * import { afterAll, describe, expect, it } from 'vitest';
 * import { runStorageConformance } from '@gatehousejs/core/testing';
 *
 * runStorageConformance(
 *   { name: 'my-engine', create: () => myStorage({ prefix: `test-${crypto.randomUUID()}` }) },
 *   { describe, it, expect, afterAll },
 * );
 * ```
 */
export function runStorageConformance(target: StorageConformanceTarget, api: ConformanceTestApi): void {
  let created: Promise<StorageEngine | GatehouseStorage> | undefined;
  const create = () => {
    created ??= Promise.resolve().then(() => target.create());
    return created;
  };
  const engine = async (): Promise<KitEngine> => {
    const made = await create();
    if (!isStorageEngine(made)) {
      throw new UsageError(
        `${target.name}: create() returned one instance's stores, not an engine with instance(); set isolation: false to leave out the isolation cases.`,
      );
    }
    return { instance: (id) => withStateStores(made.instance(id)) };
  };
  // The single-instance cases run on one view, of an instance id unique to this run.
  const instanceId = freshId('conformance');
  let view: Promise<KitStorage> | undefined;
  const storage = () => {
    view ??= create().then((made) =>
      withStateStores(isStorageEngine(made) ? made.instance(instanceId) : made),
    );
    return view;
  };
  const context = { api, storage, engine, concurrency: target.concurrency ?? 200 };

  api.describe(`storage conformance: ${target.name}`, () => {
    grantStoreCases(context);
    subjectRevocationCases(context);
    userGrantCases(context);
    atomicityCases(context);
    exchangeCases(context);
    sessionStoreCases(context);
    boundaryCases(context);
    recordFieldCases(context);
    registryCases(context);
    keyValueCases(context);
    // Left out by the target: registered anyway, each skipped with the reason.
    const multiInstance =
      target.isolation === false
        ? {
            ...context,
            api: skippingApi(api, 'isolation: false (the target is one instance’s stores, not an engine)'),
          }
        : context;
    isolationCases(multiInstance);
    keyValueIsolationCases(multiInstance);
    pushedRevocationCases(multiInstance, target);
    api.afterAll?.(async () => {
      if (created && target.cleanup) await target.cleanup(await created);
    });
  });
}
