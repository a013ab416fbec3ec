/**
 * `oidcc-rp-initiated-logout-certification-test-plan`, whole, with the user in Chromium, against
 * oidc-provider (the reference) and the Gatehouse demo: no module fails on either.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { findPlan, runPlan, summary } from '../src/index.js';
import { chromiumSkipReason, startGatehouse, startOidcProvider, type TestServer } from './servers.js';

const skip = chromiumSkipReason();
if (skip) console.warn(`logout-plan.test: skipped, ${skip}.`);

describe.skipIf(skip !== undefined)('oidcc-rp-initiated-logout-certification-test-plan', () => {
  const plan = findPlan('oidcc-rp-initiated-logout-certification-test-plan')!;
  let server: TestServer | undefined;

  afterAll(async () => {
    await server?.close();
  });

  it.each([
    ['oidc-provider (the reference)', startOidcProvider],
    ['the Gatehouse demo', () => startGatehouse()],
  ])('passes against %s', async (_name, start) => {
    server = await start();
    const result = await runPlan(plan, { issuer: server.issuer, config: server.config });
    await server.close();
    server = undefined;
    const text = summary(result);
    expect(
      result.modules.map((m) => [m.module, m.outcome]),
      text,
    ).toEqual(plan.modules.map((m) => [m.name, 'passed']));
  });
});
