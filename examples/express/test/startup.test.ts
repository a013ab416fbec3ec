/**
 * `pnpm start` on a port another server already holds: the demo says so and exits with a failure
 * status, instead of printing its URLs (which would answer from the other server) and exiting 0.
 */
import { spawn } from 'node:child_process';
import { createServer, type Server } from 'node:net';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';

const exampleDir = fileURLToPath(new URL('..', import.meta.url));

let occupant: Server | undefined;
afterEach(async () => {
  await new Promise<void>((resolve) => (occupant ? occupant.close(() => resolve()) : resolve()));
  occupant = undefined;
});

describe('the demo server on a busy port', () => {
  it('exits with status 1 and names the port and the way out, printing no URLs', async () => {
    const server = createServer();
    occupant = server;
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const address = server.address();
    if (typeof address !== 'object' || !address) throw new Error('no port');
    const child = spawn(process.execPath, ['--import', 'tsx', 'src/server.ts'], {
      cwd: exampleDir,
      env: { ...process.env, PORT: String(address.port), HOST: '127.0.0.1', GATEHOUSE_AUDIT: 'off' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const status = await new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
    expect(status, `${stdout}${stderr}`).toBe(1);
    expect(stderr).toContain(`cannot listen on 127.0.0.1:${address.port}`);
    expect(stderr).toContain('EADDRINUSE');
    expect(stderr).toContain('PORT=');
    expect(stdout).not.toContain('listening on');
  }, 60_000);
});
