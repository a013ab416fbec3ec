/**
 * `oidcc-config-certification-test-plan` against the Gatehouse demo and oidc-provider (configured
 * as the OpenID Foundation's certification setup), over HTTP, without a browser: both pass, and
 * the summary and JUnit XML say so.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { findPlan, junit, runPlan, summary } from '../src/index.js';
import { startGatehouse, startOidcProvider, type TestServer } from './servers.js';

describe('oidcc-config-certification-test-plan', () => {
  let gatehouse: TestServer;
  let provider: TestServer;

  beforeAll(async () => {
    [gatehouse, provider] = await Promise.all([startGatehouse(), startOidcProvider()]);
  });

  afterAll(async () => {
    await Promise.all([gatehouse?.close(), provider?.close()]);
  });

  it.each([
    ['the Gatehouse demo', () => gatehouse],
    ['oidc-provider', () => provider],
  ])('passes against %s (http on loopback is a warning, not a failure)', async (_name, server) => {
    const plan = findPlan('oidcc-config-certification-test-plan')!;
    const result = await runPlan(plan, { issuer: server().issuer });
    const text = summary(result);
    expect(
      result.modules.map((module) => [module.module, module.outcome]),
      text,
    ).toEqual([['oidcc-discovery-endpoint-verification', 'passed']]);
    expect(text.trim().split('\n').at(-1)).toBe('1 passed, 0 failed, 0 skipped');
    expect(result.modules[0]!.warnings.some((w) => /loopback/.test(w.message))).toBe(true);
    expect(junit(result)).toContain(
      '<testcase classname="oidcc-config-certification-test-plan" name="oidcc-discovery-endpoint-verification"',
    );
  });

  it('fails against an issuer whose discovery document names another issuer, showing the exchange', async () => {
    const plan = findPlan('oidcc-config-certification-test-plan')!;
    // The demo's origin is not its issuer (`{origin}/demo`): discovery there is not this issuer's.
    const result = await runPlan(plan, { issuer: `${gatehouse.issuer}/` });
    expect(result.modules[0]!.outcome).toBe('failed');
    const text = summary(result);
    expect(text).toMatch(/\[OIDCD-4\.3\] issuer is/);
    expect(text).toMatch(/request: {2}GET http:\/\/localhost:\d+\/demo\/\.well-known\/openid-configuration/);
    expect(text.trim().split('\n').at(-1)).toBe('0 passed, 1 failed, 0 skipped');
    expect(junit(result)).toMatch(/<failure message="\[OIDCD-4\.3\]/);
  });
});
