/**
 * The `gatehouse-conformance` command: `--help` lists the plans, a usage error exits 2, and a run
 * prints the summary, writes JUnit XML and exits 1 when a module failed.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startGatehouse, type TestServer } from './servers.js';

const run = promisify(execFile);
const cli = fileURLToPath(new URL('../src/cli.ts', import.meta.url));

/** Runs the command from its sources (tsx); resolves with its exit code and output. */
async function command(...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  try {
    const { stdout, stderr } = await run(process.execPath, ['--import', 'tsx', cli, ...args], {
      timeout: 60_000,
    });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const e = error as { code: number; stdout: string; stderr: string };
    return { code: e.code, stdout: e.stdout, stderr: e.stderr };
  }
}

describe('gatehouse-conformance', () => {
  let gatehouse: TestServer;

  beforeAll(async () => {
    gatehouse = await startGatehouse();
  });

  afterAll(async () => {
    await gatehouse?.close();
  });

  it('--help lists the five plans by the ids the OpenID Foundation spells', async () => {
    const { code, stdout } = await command('--help');
    expect(code).toBe(0);
    for (const id of [
      'oidcc-basic-certification-test-plan',
      'oidcc-config-certification-test-plan',
      'oidcc-rp-initiated-logout-certification-test-plan',
      'fapi2-security-profile-final-test-plan',
      'mcp-authorization-server',
    ]) {
      expect(stdout).toContain(id);
    }
    expect(stdout).toMatch(/not an OpenID Foundation certification/);
  });

  it('exits 2 on an unknown plan, and when an interactive plan has no config', async () => {
    expect((await command('--issuer', gatehouse.issuer, '--plan', 'nope')).code).toBe(2);
    const noConfig = await command(
      '--issuer',
      gatehouse.issuer,
      '--plan',
      'oidcc-basic-certification-test-plan',
    );
    expect(noConfig.code).toBe(2);
    expect(noConfig.stderr).toMatch(/needs --config/);
  });

  it('runs the config plan with only --issuer: summary on stdout, JUnit XML written, exit 0', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'gatehouse-conformance-'));
    const file = join(dir, 'junit.xml');
    const { code, stdout } = await command(
      '--issuer',
      gatehouse.issuer,
      '--plan',
      'oidcc-config-certification-test-plan',
      '--junit',
      file,
    );
    expect(code, stdout).toBe(0);
    expect(stdout.trim().split('\n').at(-1)).toBe('1 passed, 0 failed, 0 skipped');
    expect(stdout).toMatch(/Warnings \(not failures\):/);
    const xml = readFileSync(file, 'utf8');
    expect(xml).toMatch(
      /<testsuite name="oidcc-config-certification-test-plan" tests="1" failures="0" errors="0" skipped="0"/,
    );
  });

  it('exits 1 when a module fails', async () => {
    const { code, stdout } = await command(
      '--issuer',
      `${gatehouse.issuer}/`,
      '--plan',
      'oidcc-config-certification-test-plan',
    );
    expect(code).toBe(1);
    expect(stdout.trim().split('\n').at(-1)).toBe('0 passed, 1 failed, 0 skipped');
  });
});
