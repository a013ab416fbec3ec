/**
 * What the engine managers of this folder share: running a server and its tools (as the `postgres`
 * user when the tests run as root, since `initdb`, `pg_ctl` and `pgbouncer` refuse root), signalling
 * a server and every process it forked (a PostgreSQL server is a postmaster and its backends), and
 * waiting for a condition. Linux only (`/proc`), like the servers they manage.
 */
import { execFile, spawn, spawnSync } from 'node:child_process';
import { chownSync, closeSync, existsSync, mkdtempSync, openSync, readdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';

export { freePort } from '../../../examples/express/test/support/demo-server.js';

const execFileAsync = promisify(execFile);

/** The user the managed servers run as when the tests run as root. */
const SERVER_USER = 'postgres';

/** The uid and gid the managed servers get: {@link SERVER_USER}'s as root, else none (this process's). */
export function serverIds(): { uid: number; gid: number } | undefined {
  if (process.getuid?.() !== 0) return undefined;
  const uid = spawnSync('id', ['-u', SERVER_USER], { encoding: 'utf8' });
  const gid = spawnSync('id', ['-g', SERVER_USER], { encoding: 'utf8' });
  if (uid.status !== 0 || gid.status !== 0) return undefined;
  return { uid: Number(uid.stdout.trim()), gid: Number(gid.stdout.trim()) };
}

/** Why servers that refuse root cannot be run here, or `undefined` when they can. */
export function serverUserProblem(): string | undefined {
  if (process.getuid?.() === 0 && !serverIds())
    return `the tests run as root and there is no "${SERVER_USER}" user to run servers as`;
  return undefined;
}

/** A fresh temporary directory the server user owns. */
export function serverDirectory(prefix: string): string {
  const directory = mkdtempSync(join(tmpdir(), prefix));
  const ids = serverIds();
  if (ids) chownSync(directory, ids.uid, ids.gid);
  return directory;
}

/** Runs a server tool to completion as the server user; rejects with its output when it fails. */
export async function runServerTool(
  file: string,
  args: readonly string[],
  timeoutMs = 60_000,
): Promise<string> {
  try {
    const { stdout } = await execFileAsync(file, args, {
      ...serverIds(),
      timeout: timeoutMs,
      maxBuffer: 16 * 1024 * 1024,
      // A directory the server user may enter.
      cwd: tmpdir(),
    });
    return stdout;
  } catch (error) {
    const { stdout = '', stderr = '' } = error as { stdout?: string; stderr?: string };
    throw new Error(`\`${file} ${args.join(' ')}\` failed:\n${stdout}${stderr}`);
  }
}

/** A server running in the foreground as a child of this process (so that this process reaps it). */
export interface ServerChild {
  readonly pid: number;
  /** Resolves when it has exited. */
  readonly exited: Promise<void>;
  /** Whether it has exited. */
  hasExited(): boolean;
}

/**
 * Starts `file args` as the server user, in the foreground, its output appended to `logFile`.
 * Being this process's child, a killed server is reaped at once (a zombie would keep its lock
 * file's pid alive for a restart).
 */
export function spawnServer(file: string, args: readonly string[], logFile: string): ServerChild {
  const log = openSync(logFile, 'a');
  const child = spawn(file, args, { ...serverIds(), cwd: tmpdir(), stdio: ['ignore', log, log] });
  closeSync(log);
  let done = false;
  const exited = new Promise<void>((resolve) =>
    child.once('exit', () => {
      done = true;
      resolve();
    }),
  );
  if (child.pid === undefined) throw new Error(`could not start ${file}`);
  return { pid: child.pid, exited, hasExited: () => done };
}

/** The first executable of `candidates` that exists, or `undefined`. */
export function findExecutable(candidates: readonly string[]): string | undefined {
  for (const candidate of candidates) {
    if (candidate.includes('/')) {
      if (existsSync(candidate)) return candidate;
      continue;
    }
    const found = spawnSync('sh', ['-c', `command -v ${candidate}`], { encoding: 'utf8' });
    if (found.status === 0 && found.stdout.trim()) return found.stdout.trim();
  }
  return undefined;
}

/** `pid` and every process it forked, transitively (from `/proc/<pid>/task/<tid>/children`). */
export function processTree(pid: number): number[] {
  const tree = [pid];
  for (let index = 0; index < tree.length; index++) {
    const tasks = join('/proc', String(tree[index]), 'task');
    let tids: string[] = [];
    try {
      tids = readdirSync(tasks);
    } catch {
      continue; // gone meanwhile
    }
    for (const tid of tids) {
      try {
        const children = readFileSync(join(tasks, tid, 'children'), 'utf8').trim();
        if (children) tree.push(...children.split(/\s+/).map(Number));
      } catch {}
    }
  }
  return tree;
}

/**
 * Sends `signal` to `pid` and to every process it forked. `SIGSTOP` stops the parent first so that
 * it forks nothing meanwhile; `SIGCONT` wakes the children first so that the parent finds them running.
 */
export function signalTree(pid: number, signal: NodeJS.Signals): void {
  const tree = processTree(pid);
  const ordered = signal === 'SIGCONT' ? tree.reverse() : tree;
  for (const member of ordered) {
    try {
      process.kill(member, signal);
    } catch {}
  }
}

/** Whether a process with this id exists (a zombie counts as gone). */
export function isAlive(pid: number): boolean {
  try {
    const status = readFileSync(`/proc/${pid}/status`, 'utf8');
    return !/^State:\s+Z/m.test(status);
  } catch {
    return false;
  }
}

/** Options of {@link waitFor}. */
export interface WaitOptions {
  /** Default 20000. */
  readonly timeoutMs?: number;
  /** Default 50. */
  readonly everyMs?: number;
  /** Gives up at once with this reason when it returns one (the server being waited for exited). */
  readonly hopeless?: () => string | undefined;
}

/**
 * Resolves once `condition` holds (a throw counts as not yet), polled every `everyMs`; rejects after
 * `timeoutMs`, naming `what`, or as soon as `hopeless` gives a reason.
 */
export async function waitFor(
  condition: () => boolean | Promise<boolean>,
  what: string,
  options: WaitOptions = {},
): Promise<void> {
  const { timeoutMs = 20_000, everyMs = 50, hopeless } = options;
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      if (await condition()) return;
    } catch {}
    const reason = hopeless?.();
    if (reason !== undefined) throw new Error(`gave up waiting for ${what}: ${reason}`);
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, everyMs));
  }
}

/** Kills `pid` and everything it forked with SIGKILL and waits until all are gone. */
export async function killTree(pid: number): Promise<void> {
  const tree = processTree(pid);
  for (const member of tree) {
    try {
      process.kill(member, 'SIGKILL');
    } catch {}
  }
  await waitFor(() => tree.every((member) => !isAlive(member)), `processes ${tree.join(', ')} to die`);
}
