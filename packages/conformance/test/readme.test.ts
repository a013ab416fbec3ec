/** The README's module table is the plans' (regenerate: `node --import tsx scripts/modules-table.ts`, then `npx biome check --write`). */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { withTable } from '../scripts/modules-table.js';

/** The text with markdown table cells unpadded (the formatter pads them; the generator does not). */
function unpadded(text: string): string {
  return text
    .split('\n')
    .map((line) =>
      line.startsWith('|')
        ? line.replace(/ +\|/g, ' |').replace(/\| +/g, '| ').replace(/-{3,}/g, '---')
        : line,
    )
    .join('\n');
}

describe('README', () => {
  it('lists every module of every plan with its sections and test', () => {
    const readme = readFileSync(fileURLToPath(new URL('../README.md', import.meta.url)), 'utf8');
    expect(unpadded(readme)).toBe(unpadded(withTable(readme)));
  });
});

describe('configs/gatehouse-demo.json (the config of the README command, for `pnpm start`)', () => {
  it("names the demo's seeded clients, user and pages, as the tests drive them", async () => {
    const { gatehouseConfig } = await import('./servers.js');
    const file = JSON.parse(
      readFileSync(fileURLToPath(new URL('../configs/gatehouse-demo.json', import.meta.url)), 'utf8'),
    );
    const {
      code_reuse_wait_seconds: _wait,
      browser_timeout_ms: _timeout,
      chromium: _chromium,
      ...tested
    } = gatehouseConfig('http://localhost:3000', 'http://localhost:3000/demo');
    expect(file).toEqual({
      ...tested,
      mcp: {
        resource: 'http://localhost:3000/mcp',
        scope: 'tickets:read',
        client: { client_id: 'demo-spa', redirect_uri: 'http://localhost:3000/callback' },
      },
    });
  });
});
