/**
 * Runs a pasted quick start the way its user would (`npx tsx server.mts`, `npx next start`), as a
 * child process in its own process group, so stopping it also stops what `npx` spawned.
 */
import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { promisify } from 'node:util';

const run = promisify(execFile);

/** A running quick start. */
export interface AppProcess {
  /** Everything it printed so far (for failure messages). */
  output(): string;
  /** Stops it (SIGTERM to its process group, SIGKILL if it lingers) and waits for it to exit. */
  stop(): Promise<void>;
}

/**
 * The environment of a user's shell: this process's, without what the test runner adds (vitest
 * sets `NODE_ENV=test`, which `next build` refuses to treat as production), plus `extra`.
 */
export function userEnvironment(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const env = Object.fromEntries(
    Object.entries(process.env).filter(([name]) => name !== 'NODE_ENV' && !name.startsWith('VITEST')),
  );
  return { ...env, NEXT_TELEMETRY_DISABLED: '1', ...extra };
}

/** Runs a command to completion in `cwd` (e.g. `next build`); rejects with its output when it fails. */
export async function runCommand(command: readonly string[], cwd: string): Promise<void> {
  const [file, ...args] = command;
  try {
    await run(file!, args, { cwd, env: userEnvironment(), maxBuffer: 16 * 1024 * 1024 });
  } catch (error) {
    const { stdout = '', stderr = '' } = error as { stdout?: string; stderr?: string };
    throw new Error(`\`${command.join(' ')}\` failed in ${cwd}:\n${stdout}${stderr}`);
  }
}

/**
 * Starts `command` in `cwd` (with `env` added to the user's environment) and resolves once
 * `readyUrl` answers 200; rejects with the output when the process exits first or is not ready
 * within `readyWithinMs`.
 */
export async function startApp(
  command: readonly string[],
  cwd: string,
  readyUrl: string,
  readyWithinMs = 60_000,
  env: Record<string, string> = {},
): Promise<AppProcess> {
  const [file, ...args] = command;
  const child = spawn(file!, args, {
    cwd,
    env: userEnvironment(env),
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const app: AppProcess = { output: () => output, stop: () => stopGroup(child, exited) };

  const deadline = Date.now() + readyWithinMs;
  while (child.exitCode === null && child.signalCode === null) {
    try {
      if ((await fetch(readyUrl)).status === 200) return app;
    } catch {
      // Not listening yet.
    }
    if (Date.now() > deadline) {
      await app.stop();
      throw new Error(`\`${command.join(' ')}\` did not answer ${readyUrl} in time:\n${output}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  await app.stop();
  throw new Error(`\`${command.join(' ')}\` exited before it answered ${readyUrl}:\n${output}`);
}

async function stopGroup(child: ChildProcess, exited: Promise<void>): Promise<void> {
  if (child.pid === undefined) return;
  // The group, even when `npx` itself is gone: what it started may still be running.
  const running = child.exitCode === null && child.signalCode === null;
  const group = -child.pid;
  try {
    process.kill(group, 'SIGTERM');
  } catch {
    return; // nothing left in the group
  }
  if (!running) return;
  const timer = setTimeout(() => {
    try {
      process.kill(group, 'SIGKILL');
    } catch {}
  }, 5000);
  await exited;
  clearTimeout(timer);
}
