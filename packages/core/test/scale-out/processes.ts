/**
 * Child processes for the scale-out tests of the storage engines (their TCP proxy is
 * tests/support/engines/tcp-fault-proxy.ts).
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const SERVER_SCRIPT = fileURLToPath(new URL('./server.ts', import.meta.url));
// @gatehousejs/* resolve to the sources in the child process, as under vitest.
const TSCONFIG = fileURLToPath(
  new URL('../../../../tests/support/engines/sources.tsconfig.json', import.meta.url),
);
const REPO_ROOT = fileURLToPath(new URL('../../../../', import.meta.url));

/** A running Gatehouse server process. */
export interface ServerProcess {
  /** `http://127.0.0.1:<port>/demo`. */
  readonly base: string;
  stop(): Promise<void>;
}

/** Starts `server.ts` in a child process with `env` added to ours; resolves once it listens. */
export function startServer(env: Record<string, string>): Promise<ServerProcess> {
  const child = spawn(process.execPath, ['--import', 'tsx', SERVER_SCRIPT], {
    cwd: REPO_ROOT,
    env: { ...process.env, ...env, TSX_TSCONFIG_PATH: TSCONFIG },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stderr = '';
  child.stderr!.on('data', (chunk) => {
    stderr += chunk;
  });
  return new Promise((resolve, reject) => {
    let stdout = '';
    const onExit = (code: number | null) =>
      reject(new Error(`server process exited (${code}) before listening:\n${stderr}`));
    child.once('exit', onExit);
    child.stdout!.on('data', (chunk) => {
      stdout += chunk;
      const line = stdout.split('\n')[0];
      if (stdout.includes('\n') && line) {
        child.off('exit', onExit);
        const { port } = JSON.parse(line) as { port: number };
        resolve({ base: `http://127.0.0.1:${port}/demo`, stop: () => stopChild(child) });
      }
    });
  });
}

function stopChild(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    child.once('exit', () => resolve());
    child.kill('SIGTERM');
  });
}
