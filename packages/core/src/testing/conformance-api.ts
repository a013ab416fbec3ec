import type { KeyValueStateStores } from '../storage/kv/stores.js';
import type { GatehouseStorage, StorageEngine } from '../storage/types.js';

/**
 * The few assertion methods the conformance suite uses. Structural, so that vitest's (or Jest's)
 * `expect` fits without `@gatehousejs/core` depending on a test runner.
 */
export interface ConformanceAssertion {
  toBe(expected: unknown): void;
  toEqual(expected: unknown): void;
  toBeNull(): void;
  readonly not: ConformanceAssertion;
}

/**
 * What the runner hands a case's body: vitest's test context fits. `skip(note)` marks the running
 * case skipped with the reason and stops it (vitest's `context.skip`).
 */
export interface ConformanceTestContext {
  skip(note?: string): void;
}

/** The test-runner functions the suite registers its cases with (pass vitest's own). */
export interface ConformanceTestApi {
  describe(name: string, body: () => void): void;
  /**
   * Registers a case. A case of an optional capability the engine lacks (user marks, grant
   * listing, pushed revocations, isolation) calls `context.skip(reason)`, so the runner reports it
   * skipped with the reason, never passed. A runner that hands no such context (Jest) gets the case
   * failed with the reason instead. The body declares no parameter of its own (`length` 0), so a
   * runner never mistakes it for a `done`-callback test.
   */
  it(name: string, body: (context?: ConformanceTestContext) => Promise<void>): void;
  expect(actual: unknown): ConformanceAssertion;
  /** Used to run {@link StorageConformanceTarget.cleanup} once the suite is done. */
  afterAll?(body: () => Promise<void>): void;
}

/** The engine under test. */
export interface StorageConformanceTarget {
  /** Shown in the test names, e.g. `redis`. */
  readonly name: string;
  /**
   * Creates the engine under test, once per suite. The cases take views of fresh random instance
   * ids from it (and use fresh random keys), so they share the engine safely, and the isolation
   * cases take two views to check that instances never see each other's records. Give the engine a
   * unique namespace (key prefix, schema) per run so that parallel runs do not collide.
   *
   * A host store that serves one instance only may return its {@link GatehouseStorage} and set
   * {@link isolation} to `false`: the isolation cases are then left out.
   */
  create(): Promise<StorageEngine | GatehouseStorage> | StorageEngine | GatehouseStorage;
  /** Releases what {@link create} made (drop the namespace, close connections). */
  cleanup?(created: StorageEngine | GatehouseStorage): Promise<void> | void;
  /** Run the isolation cases (two instances on one engine). Default `true`: `create` returns an engine. */
  readonly isolation?: boolean;
  /**
   * Pushed revocations (engines with `watchRevocations`): another handle on the same data with its
   * own connections, standing for another process. Without it the cases watch the engine itself.
   */
  peer?(): Promise<StorageEngine>;
  /** Breaks `peer`'s revocation channel once (it must reconnect by itself); enables the cut-channel case. */
  cutChannel?(peer: StorageEngine): Promise<void>;
  /** Callers racing on one code / one refresh token in the atomicity cases. Default 200. */
  readonly concurrency?: number;
}

/**
 * One instance's view under test, with the stores Gatehouse builds on its `kv` (sessions, consents,
 * rate limits, replay ids), so that those cases run through the key-value store as Gatehouse does.
 */
export type KitStorage = GatehouseStorage & KeyValueStateStores;

/** An engine whose views come with the stores built on their `kv` ({@link KitStorage}). */
export interface KitEngine {
  instance(instanceId: string): KitStorage;
}

/** What each group of cases receives. */
export interface CaseContext {
  readonly api: ConformanceTestApi;
  /** The stores under test: one instance's view (created on first use). */
  storage(): Promise<KitStorage>;
  /** The engine under test (created on first use); rejects when the target gave no engine. */
  engine(): Promise<KitEngine>;
  readonly concurrency: number;
}
