/**
 * Issue 32: "Protecting an MCP server", followed top to bottom in a default `npm init -y` project
 * (CommonJS: the guide's `server.mts` must run there, top-level await included). The guide's
 * `npm install` line is installed with the packed tarballs standing in for the registry, its key
 * is generated into `.env` with the guide's own `npx gatehouse keys generate --format env > .env`, and
 * `server.mts` is pasted as written (port 3000 moved to a free one) and started as the guide says
 * (`npx tsx --env-file=.env …`; without the file it names the missing variable).
 * Then: `POST /mcp` without a token is refused as the MCP authorization specification asks (401,
 * `resource_metadata` naming the RFC 9728 document, which is served), and a second start on the
 * busy port fails loudly (non-zero exit, the reason printed) instead of claiming to serve.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it, onTestFailed } from 'vitest';
import { freePort } from '../../examples/express/test/support/demo-server';
import { type AppProcess, startApp, userEnvironment } from '../quickstarts/app-process';
import { fencedBlocks, readQuickStart } from '../quickstarts/readme-quick-start';
import { installFreshProject, type PackedPackage, packagesBuilt, packPublished } from '../support/pack';

const run = promisify(execFile);
const guide = fileURLToPath(new URL('../../packages/core/docs/mcp.md', import.meta.url));

if (!packagesBuilt) console.warn('guides: skipped, the packages are not built (run `pnpm run build`).');

let work = '';
let packed: PackedPackage[] = [];

beforeAll(async () => {
  if (!packagesBuilt) return;
  work = mkdtempSync(join(tmpdir(), 'gatehouse-guide-mcp-'));
  packed = await packPublished(join(work, 'tarballs'));
});

afterAll(() => {
  if (work) rmSync(work, { recursive: true, force: true });
});

describe.skipIf(!packagesBuilt)('guide: Protecting an MCP server', () => {
  it('runs in a default npm init project: 401 with resource_metadata, and a busy port fails loudly', async () => {
    const server = readQuickStart(guide, { section: 'A complete server', install: 'npm install ' });
    expect(server.files.map((file) => file.path)).toEqual(['server.mts']);
    const [file] = server.files;
    const start = /npx tsx (?:--\S+ )*\S+\.mts/.exec(file!.code)?.[0];
    expect(start).toBe('npx tsx --env-file=.env server.mts');
    const keysCommand = fencedBlocks(readFileSync(guide, 'utf8'), 'sh')
      .flatMap((block) => block.split('\n'))
      .find((line) => line.startsWith('npx gatehouse keys generate'))
      ?.replace(/\s+#.*$/, '');
    expect(keysCommand).toBe('npx gatehouse keys generate --format env > .env');
    const [keysArgv, keysFile] = keysCommand!.split(' > ');

    const project = join(work, 'app');
    await installFreshProject(project, 'npm', packed, server.install, { npmInit: true });
    expect(JSON.parse(readFileSync(join(project, 'package.json'), 'utf8')).type).not.toBe('module');
    const port = await freePort();
    writeFileSync(join(project, file!.path), file!.code.replace(/\b3000\b/g, String(port)));

    // The guide's key, written to the file the guide names, which the start command reads.
    const { stdout } = await run(keysArgv!.split(' ')[0]!, keysArgv!.split(' ').slice(1), {
      cwd: project,
      env: userEnvironment(),
    });
    expect(stdout).toMatch(/^GATEHOUSE_SIGNING_KEY='.+'$/m);
    writeFileSync(join(project, keysFile!), stdout);
    const env = {};

    const origin = `http://localhost:${port}`;
    const metadataUrl = `${origin}/.well-known/oauth-protected-resource/mcp`;
    const started: AppProcess[] = [];
    onTestFailed(() => console.error(started.map((app) => app.output()).join('\n---\n')));
    try {
      started.push(await startApp(start!.split(' '), project, metadataUrl, 60_000, env));
      expect(started[0]!.output()).toContain(`MCP server at ${origin}/mcp`);

      const refused = await fetch(`${origin}/mcp`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream' },
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
      });
      expect(refused.status).toBe(401);
      expect(refused.headers.get('www-authenticate')).toBe(
        `Bearer realm="${origin}/auth", scope="tickets:read", resource_metadata="${metadataUrl}"`,
      );
      const metadata = await (await fetch(metadataUrl)).json();
      expect(metadata).toMatchObject({
        resource: `${origin}/mcp`,
        authorization_servers: [`${origin}/auth`],
      });

      // The same server again, on the port the first one holds.
      const busy = await run(start!.split(' ')[0]!, start!.split(' ').slice(1), {
        cwd: project,
        env: userEnvironment(env),
        timeout: 60_000,
      }).then(
        ({ stdout, stderr }) => ({ code: 0, killed: false, output: stdout + stderr }),
        (error: { code?: number | string; killed?: boolean; stdout?: string; stderr?: string }) => ({
          code: error.code,
          killed: error.killed === true,
          output: `${error.stdout ?? ''}${error.stderr ?? ''}`,
        }),
      );
      // It exited by itself (not stopped by the timeout), with a failure status.
      expect(busy.killed).toBe(false);
      expect(busy.code).toBeTypeOf('number');
      expect(busy.code).not.toBe(0);
      expect(busy.output).toContain('EADDRINUSE');
      expect(busy.output).not.toContain('MCP server at');

      // Started without the key file: it says which variable is missing and how to start.
      const withoutKey = await run('npx', ['tsx', file!.path], {
        cwd: project,
        env: userEnvironment(),
        timeout: 60_000,
      }).then(
        () => ({ code: 0, output: '' }),
        (error: { code?: number | string; stdout?: string; stderr?: string }) => ({
          code: error.code,
          output: `${error.stdout ?? ''}${error.stderr ?? ''}`,
        }),
      );
      expect(withoutKey.code).not.toBe(0);
      expect(withoutKey.output).toContain(`GATEHOUSE_SIGNING_KEY is not set: start with ${start}`);
    } finally {
      for (const app of started) await app.stop();
    }
  });
});
