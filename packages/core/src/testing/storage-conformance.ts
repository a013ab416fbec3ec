import type { GatehouseStorage } from '../storage/types.js';
import { atomicityCases } from './atomicity-cases.js';
import { boundaryCases } from './boundary-cases.js';
import type { ConformanceTestApi, StorageConformanceTarget } from './conformance-api.js';
import { grantStoreCases } from './grant-store-cases.js';
import { sessionStoreCases } from './session-store-cases.js';

/**
 * Registers the storage conformance suite for one engine with the given test runner: round trips,
 * expiry (by moving the `now` argument, never by sleeping), revocation by grant and by jti,
 * idempotency, fractional times and repeated saves, and atomicity under concurrency (by default 200 parallel redemptions of one code and
 * 200 parallel rotations of one refresh token, each with exactly one winner).
 *
 * Record times are based on the wall clock, so engines that hand expiries to a server (Redis TTLs,
 * SQL sweepers) keep the records for the duration of the suite.
 *
 * @example
 * ```ts
 * import { afterAll, describe, expect, it } from 'vitest';
 * import { runStorageConformance } from '@gatehouse/core/testing';
 *
 * runStorageConformance(
 *   { name: 'my-engine', create: () => myStorage({ prefix: `test-${crypto.randomUUID()}` }) },
 *   { describe, it, expect, afterAll },
 * );
 * ```
 */
export function runStorageConformance(target: StorageConformanceTarget, api: ConformanceTestApi): void {
  let created: Promise<GatehouseStorage> | undefined;
  const storage = () => {
    created ??= Promise.resolve().then(() => target.create());
    return created;
  };
  const context = { api, storage, concurrency: target.concurrency ?? 200 };

  api.describe(`storage conformance: ${target.name}`, () => {
    grantStoreCases(context);
    atomicityCases(context);
    sessionStoreCases(context);
    boundaryCases(context);
    api.afterAll?.(async () => {
      if (created && target.cleanup) await target.cleanup(await created);
    });
  });
}
