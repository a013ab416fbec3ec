/**
 * `mcp-authorization-server` against the Gatehouse demo with the MCP server of `examples/mcp`
 * at `/mcp`, with the user in Chromium.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { findPlan, runPlan, summary } from '../src/index.js';
import { chromiumSkipReason, startGatehouseMcp, type TestServer } from './servers.js';

const skip = chromiumSkipReason();
if (skip) console.warn(`mcp-plan.test: skipped, ${skip}.`);

describe.skipIf(skip !== undefined)('mcp-authorization-server', () => {
  let server: TestServer | undefined;

  afterAll(async () => {
    await server?.close();
  });

  it('passes against the Gatehouse demo and its MCP server', async () => {
    const plan = findPlan('mcp-authorization-server')!;
    server = await startGatehouseMcp();
    const result = await runPlan(plan, { issuer: server.issuer, config: server.config });
    const text = summary(result);
    console.log(text);
    expect(
      result.modules.map((m) => [m.module, m.outcome]),
      text,
    ).toEqual(plan.modules.map((m) => [m.name, 'passed']));
  });
});
