import type { GatehouseStorage } from '../storage/types.js';

/**
 * The few assertion methods the conformance suite uses. Structural, so that vitest's (or Jest's)
 * `expect` fits without `@gatehouse/core` depending on a test runner.
 */
export interface ConformanceAssertion {
  toBe(expected: unknown): void;
  toEqual(expected: unknown): void;
  toBeNull(): void;
  readonly not: ConformanceAssertion;
}

/** The test-runner functions the suite registers its cases with (pass vitest's own). */
export interface ConformanceTestApi {
  describe(name: string, body: () => void): void;
  it(name: string, body: () => Promise<void>): void;
  expect(actual: unknown): ConformanceAssertion;
  /** Used to run {@link StorageConformanceTarget.cleanup} once the suite is done. */
  afterAll?(body: () => Promise<void>): void;
}

/** The engine under test. */
export interface StorageConformanceTarget {
  /** Shown in the test names, e.g. `redis`. */
  readonly name: string;
  /**
   * Creates the stores under test, once per suite (every case uses fresh random keys, so cases share
   * the instance safely). Give the engine a unique namespace (key prefix, schema) per run so that
   * parallel runs do not collide.
   */
  create(): Promise<GatehouseStorage> | GatehouseStorage;
  /** Releases what {@link create} made (drop the namespace, close connections). */
  cleanup?(storage: GatehouseStorage): Promise<void> | void;
  /** Callers racing on one code / one refresh token in the atomicity cases. Default 200. */
  readonly concurrency?: number;
}

/** What each group of cases receives. */
export interface CaseContext {
  readonly api: ConformanceTestApi;
  /** The stores under test (created on first use). */
  storage(): Promise<GatehouseStorage>;
  readonly concurrency: number;
}
