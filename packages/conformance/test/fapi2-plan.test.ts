/**
 * `fapi2-security-profile-final-test-plan` (private_key_jwt, DPoP, PAR required) against a
 * Gatehouse instance under `securityProfile: 'fapi2'`, with the user in Chromium.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { findPlan, runPlan, summary } from '../src/index.js';
import { chromiumSkipReason, startGatehouseFapi2, type TestServer } from './servers.js';

const skip = chromiumSkipReason();
if (skip) console.warn(`fapi2-plan.test: skipped, ${skip}.`);

describe.skipIf(skip !== undefined)('fapi2-security-profile-final-test-plan', () => {
  let server: TestServer | undefined;

  afterAll(async () => {
    await server?.close();
  });

  it('runs every module against Gatehouse under the FAPI 2.0 profile', async () => {
    const plan = findPlan('fapi2-security-profile-final-test-plan')!;
    server = await startGatehouseFapi2();
    const result = await runPlan(plan, { issuer: server.issuer, config: server.config });
    const text = summary(result);
    console.log(text);
    expect(
      result.modules.filter((m) => m.outcome === 'failed').map((m) => m.module),
      text,
    ).toEqual([]);
    expect(
      result.modules.filter((m) => m.outcome === 'skipped').map((m) => m.module),
      text,
    ).toEqual([]);
  });
});
