import type { ConformanceTestApi, ConformanceTestContext } from './conformance-api.js';

/**
 * Ends a case the engine cannot run (it lacks an optional capability) under a runner without a
 * skip of its own: the case fails with the reason, since passing it would claim a check that did
 * not happen.
 */
export class CaseNotRun extends Error {
  constructor(reason: string) {
    super(
      `Not run: ${reason}. This test runner cannot mark a case skipped while it runs (vitest's context.skip does).`,
    );
    this.name = 'CaseNotRun';
  }
}

/** Stops the running case as skipped with `reason`. */
export type SkipCase = (reason: string) => never;

/**
 * Registers a case whose body may find the engine without an optional capability: it calls
 * `skip(reason)`, which marks the case skipped through the runner's context (`context.skip`), or,
 * without one, fails it with the reason ({@link CaseNotRun}). Never a silent pass.
 */
export function optionalCase(
  api: ConformanceTestApi,
  name: string,
  body: (skip: SkipCase) => Promise<void>,
): void {
  // A rest parameter keeps the body's `length` at 0 (Jest would take a named one for `done`).
  api.it(name, (...runner: unknown[]) => {
    const context = runner[0] as Partial<ConformanceTestContext> | undefined;
    const skip: SkipCase = (reason) => {
      if (typeof context?.skip === 'function') context.skip(reason);
      throw new CaseNotRun(reason);
    };
    return body(skip);
  });
}

/**
 * The same runner, but every case it registers is skipped with `reason`: for groups of cases the
 * target left out (`isolation: false`), so they are reported, not silently absent.
 */
export function skippingApi(api: ConformanceTestApi, reason: string): ConformanceTestApi {
  return {
    ...api,
    it: (name) => optionalCase(api, name, async (skip) => skip(reason)),
  };
}
