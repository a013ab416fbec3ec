/**
 * The plans against the Gatehouse demo on Redis and on PostgreSQL (what `GATEHOUSE_STORE` picks for
 * `pnpm start`): the config and RP-initiated logout plans whole, and the Basic modules whose state
 * lives in the store (codes, their reuse, sessions for prompt=none and id_token_hint, refresh
 * tokens). The memory engine runs every plan whole (basic-plan.test.ts and the others). Skipped
 * with the reason when the engine's URL is not set.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { findPlan, runPlan, summary } from '../src/index.js';
import { chromiumSkipReason, engineSkipReason, startGatehouseOn, type TestServer } from './servers.js';

const STORED_STATE_MODULES = [
  'oidcc-server',
  'oidcc-prompt-none-logged-in',
  'oidcc-id-token-hint',
  'oidcc-codereuse',
  'oidcc-codereuse-30seconds',
  'oidcc-refresh-token',
];

for (const engine of ['redis', 'postgres'] as const) {
  const skip = chromiumSkipReason() ?? engineSkipReason(engine);
  if (skip) console.warn(`engines.test (${engine}): skipped, ${skip}.`);

  describe.skipIf(skip !== undefined)(`the Gatehouse demo on ${engine}`, () => {
    let server: TestServer | undefined;

    afterEach(async () => {
      await server?.close();
      server = undefined;
    });

    it.each([
      ['oidcc-config-certification-test-plan', undefined],
      ['oidcc-rp-initiated-logout-certification-test-plan', undefined],
      ['oidcc-basic-certification-test-plan', STORED_STATE_MODULES],
    ] as const)('passes %s', async (planId, only) => {
      server = await startGatehouseOn(engine);
      const plan = findPlan(planId)!;
      const result = await runPlan(plan, {
        issuer: server.issuer,
        config: server.config,
        ...(only ? { only } : {}),
      });
      const text = summary(result);
      const expected = plan.modules
        .filter((m) => !only || only.includes(m.name))
        .map((m) => [m.name, 'passed']);
      expect(
        result.modules.map((m) => [m.module, m.outcome]),
        text,
      ).toEqual(expected);
    });
  });
}
