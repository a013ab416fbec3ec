/**
 * Real `redis-server` processes for tests that need more than the machine's one Redis: a Cluster
 * (`redis-cluster.ts`), a primary with a replica and Sentinels (`redis-sentinel.ts`), and the fault
 * campaign, which kills, pauses and restarts them. Only `node:` built-ins: the tests of any package
 * can use it, and it talks to the servers with a few lines of RESP instead of a client library.
 */
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { createWriteStream, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { connect, createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** Where a program is on the `PATH`, or `undefined`. */
function which(program: string): string | undefined {
  try {
    return execFileSync('sh', ['-c', `command -v ${program}`], { encoding: 'utf8' }).trim() || undefined;
  } catch {
    return undefined;
  }
}

/**
 * Why the Redis process tests cannot run here (`redis-server` or `redis-cli` missing), or
 * `undefined` when they can. Sentinels run as `redis-server --sentinel`, the binary Debian's
 * `redis-sentinel` package links to, so `redis-server` is all they need.
 */
export function redisProcessesMissing(): string | undefined {
  const missing = ['redis-server', 'redis-cli'].filter((program) => which(program) === undefined);
  return missing.length === 0
    ? undefined
    : `${missing.join(' and ')} not on the PATH (apt-get install redis-server)`;
}

/** The version of the `redis-server` on the PATH, e.g. `[7, 0, 15]`. */
export function redisServerVersion(): [number, number, number] {
  const text = execFileSync('redis-server', ['--version'], { encoding: 'utf8' });
  const [major, minor, patch] = /v=(\d+)\.(\d+)\.(\d+)/.exec(text)!.slice(1).map(Number);
  return [major!, minor!, patch!];
}

/** A temporary directory for one set of servers (their configs, logs and data); removed by the caller. */
export function redisWorkDir(name: string): string {
  return mkdtempSync(join(tmpdir(), `gatehouse-${name}-`));
}

async function portIsFree(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const probe = createServer();
    probe.once('error', () => resolve(false));
    probe.listen(port, '127.0.0.1', () => probe.close(() => resolve(true)));
  });
}

const taken = new Set<number>();

/**
 * `count` loopback ports that are free now, never handed out before by this process. With
 * `busOffset`, the port that far above each is free too (a Cluster node's bus listens on port + 10000).
 */
export async function freePorts(count: number, busOffset?: number): Promise<number[]> {
  const ports: number[] = [];
  while (ports.length < count) {
    const port = 20_000 + Math.floor(Math.random() * 30_000);
    if (taken.has(port) || (busOffset !== undefined && taken.has(port + busOffset))) continue;
    if (!(await portIsFree(port))) continue;
    if (busOffset !== undefined && !(await portIsFree(port + busOffset))) continue;
    taken.add(port);
    if (busOffset !== undefined) taken.add(port + busOffset);
    ports.push(port);
  }
  return ports;
}

/** A RESP reply: a status or bulk string, an integer, null, an error, or an array of them. */
export type RespReply = string | number | null | Error | RespReply[];

/** Parses one reply at `offset`; `undefined` while `buffer` does not hold all of it yet. */
function parseReply(buffer: Buffer, offset: number): { reply: RespReply; next: number } | undefined {
  const end = buffer.indexOf('\r\n', offset);
  if (end < 0) return undefined;
  const line = buffer.toString('utf8', offset + 1, end);
  switch (String.fromCharCode(buffer[offset]!)) {
    case '+':
      return { reply: line, next: end + 2 };
    case '-':
      return { reply: new Error(line), next: end + 2 };
    case ':':
      return { reply: Number(line), next: end + 2 };
    case '$': {
      const length = Number(line);
      if (length < 0) return { reply: null, next: end + 2 };
      if (buffer.length < end + 2 + length + 2) return undefined;
      return { reply: buffer.toString('utf8', end + 2, end + 2 + length), next: end + 2 + length + 2 };
    }
    case '*': {
      const length = Number(line);
      if (length < 0) return { reply: null, next: end + 2 };
      const items: RespReply[] = [];
      let next = end + 2;
      for (let i = 0; i < length; i++) {
        const item = parseReply(buffer, next);
        if (item === undefined) return undefined;
        items.push(item.reply);
        next = item.next;
      }
      return { reply: items, next };
    }
    default:
      throw new Error(`unexpected RESP reply: ${line}`);
  }
}

/**
 * Sends one command to the server on `port` (its own connection, closed afterwards) and resolves
 * to its reply; an error reply is returned, not thrown. Rejects when the server does not answer
 * within `timeoutMs` or refuses the connection.
 */
export function redisCommand(port: number, args: readonly (string | number)[], timeoutMs = 2000) {
  return new Promise<RespReply>((resolve, reject) => {
    const socket = connect(port, '127.0.0.1');
    let buffer = Buffer.alloc(0);
    const timer = setTimeout(() => {
      socket.destroy();
      reject(new Error(`redis :${port} did not answer ${args[0]} within ${timeoutMs} ms`));
    }, timeoutMs);
    socket.on('error', (error) => {
      clearTimeout(timer);
      reject(error);
    });
    socket.on('data', (chunk) => {
      buffer = Buffer.concat([buffer, chunk]);
      const parsed = parseReply(buffer, 0);
      if (parsed === undefined) return;
      clearTimeout(timer);
      socket.destroy();
      resolve(parsed.reply);
    });
    const parts = args.map(String);
    socket.write(
      `*${parts.length}\r\n${parts.map((part) => `$${Buffer.byteLength(part)}\r\n${part}\r\n`).join('')}`,
    );
  });
}

/** {@link redisCommand}, rejecting on an error reply. */
export async function redisCall(port: number, args: readonly (string | number)[], timeoutMs?: number) {
  const reply = await redisCommand(port, args, timeoutMs);
  if (reply instanceof Error) throw new Error(`redis :${port} ${args.join(' ')}: ${reply.message}`);
  return reply;
}

/** The `field:value` lines of an `INFO` or `CLUSTER INFO` reply. */
export function infoFields(text: RespReply): Record<string, string> {
  const fields: Record<string, string> = {};
  for (const line of String(text).split('\r\n')) {
    const colon = line.indexOf(':');
    if (colon > 0) fields[line.slice(0, colon)] = line.slice(colon + 1);
  }
  return fields;
}

/** Polls `probe` every 50 ms until it answers something other than `undefined`; rejects after `timeoutMs`. */
export async function waitFor<T>(
  what: string,
  probe: () => Promise<T | undefined>,
  timeoutMs = 15_000,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let last: unknown;
  for (;;) {
    try {
      const value = await probe();
      if (value !== undefined) return value;
    } catch (error) {
      last = error;
    }
    if (Date.now() > deadline)
      throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}${last ? `: ${last}` : ''}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** One `redis-server` process (a Cluster node, a primary, a replica or a Sentinel). */
export interface RedisProcess {
  readonly port: number;
  /** Its working directory (config, data, `redis.log`). */
  readonly dir: string;
  /** The process id while it runs. */
  readonly pid: number | undefined;
  readonly running: boolean;
  /** Sends `signal` (`SIGKILL` for `kill -9`, `SIGSTOP` / `SIGCONT` to pause) without waiting. */
  signal(signal: NodeJS.Signals): void;
  /** `kill -9`, resolving once the process is gone. */
  kill(): Promise<void>;
  /** Starts it again with the same arguments (after {@link kill} or {@link stop}); resolves once it answers PING. */
  start(): Promise<void>;
  /** Stops it (SIGTERM, SIGKILL after 5 s) and resolves once it exited. */
  stop(): Promise<void>;
}

/**
 * Starts `redis-server` on `port` with `args`, in `dir`, logging to `dir/redis.log`; resolves once
 * it answers PING. Nothing is saved unless `args` ask for it. With `sentinel`, the file at that
 * path is its (rewritable) Sentinel config and it runs as `redis-server <config> --sentinel`.
 */
export async function startRedisProcess(options: {
  readonly port: number;
  readonly dir: string;
  readonly args?: readonly string[];
  readonly sentinel?: string;
}): Promise<RedisProcess> {
  const { port, dir } = options;
  mkdirSync(dir, { recursive: true });
  const where = ['--port', String(port), '--bind', '127.0.0.1', '--dir', dir];
  const args = options.sentinel
    ? [options.sentinel, '--sentinel', ...where, ...(options.args ?? [])]
    : [...where, '--save', '', '--appendonly', 'no', ...(options.args ?? [])];
  let child: ChildProcess | undefined;
  let exited: Promise<void> = Promise.resolve();
  const running = () => child !== undefined && child.exitCode === null && child.signalCode === null;

  const start = async () => {
    if (running()) return;
    const log = createWriteStream(join(dir, 'redis.log'), { flags: 'a' });
    const spawned = spawn('redis-server', args, { cwd: dir, stdio: ['ignore', 'pipe', 'pipe'] });
    spawned.stdout!.pipe(log);
    spawned.stderr!.pipe(log);
    child = spawned;
    exited = new Promise((resolve) => spawned.once('exit', () => resolve()));
    await waitFor(
      `redis-server :${port} to answer PING`,
      async () => {
        if (spawned.exitCode !== null) throw new Error(`redis-server :${port} exited (${spawned.exitCode})`);
        return (await redisCommand(port, ['PING'], 500)) === 'PONG' ? true : undefined;
      },
      10_000,
    );
  };

  const handle: RedisProcess = {
    port,
    dir,
    get pid() {
      return running() ? child!.pid : undefined;
    },
    get running() {
      return running();
    },
    signal(signal) {
      if (running()) child!.kill(signal);
    },
    async kill() {
      if (!running()) return;
      child!.kill('SIGKILL');
      await exited;
    },
    start,
    async stop() {
      if (!running()) return;
      child!.kill('SIGCONT'); // a paused process would never see SIGTERM
      child!.kill('SIGTERM');
      const timer = setTimeout(() => child?.kill('SIGKILL'), 5000);
      await exited;
      clearTimeout(timer);
    },
  };
  await start();
  return handle;
}

/** Stops every process, then removes `dir`. */
export async function stopRedisProcesses(processes: readonly RedisProcess[], dir: string): Promise<void> {
  await Promise.all(processes.map((handle) => handle.stop()));
  rmSync(dir, { recursive: true, force: true });
}

/** A `MONITOR` connection: the commands a server ran, as clients sent them. */
export interface RedisMonitor {
  /**
   * The commands run since the last call (names in lower case, then arguments), those run by
   * scripts (`lua`) and by this monitor's own bookkeeping left out. Waits until the server's
   * stream caught up (an `ECHO` of a marker sent after them came back).
   */
  take(): Promise<string[][]>;
  stop(): void;
}

/** Opens `MONITOR` on the server on `port` (costly for the server: tests only). */
export async function monitorRedis(port: number): Promise<RedisMonitor> {
  const socket = connect(port, '127.0.0.1');
  let text = '';
  let lines: string[][] = [];
  const waiters = new Map<string, () => void>();
  socket.setEncoding('utf8');
  socket.on('error', () => {});
  socket.on('data', (chunk: string) => {
    text += chunk;
    let end = text.indexOf('\r\n');
    while (end >= 0) {
      const line = text.slice(0, end);
      text = text.slice(end + 2);
      end = text.indexOf('\r\n');
      const bracket = line.indexOf('] ');
      if (!line.startsWith('+') || bracket < 0 || / lua\]/.test(line.slice(0, bracket + 1))) continue;
      const parts = [...line.slice(bracket + 2).matchAll(/"((?:[^"\\]|\\.)*)"/g)].map((match) => match[1]!);
      if (parts[0]?.toLowerCase() === 'echo' && waiters.has(parts[1]!)) {
        waiters.get(parts[1]!)!();
        continue;
      }
      lines.push([parts[0]!.toLowerCase(), ...parts.slice(1)]);
    }
  });
  await new Promise<void>((resolve, reject) => {
    socket.once('connect', resolve);
    socket.once('error', reject);
  });
  socket.write('MONITOR\r\n');
  // Past the +OK: a marker seen means the monitor is on.
  const mark = async () => {
    const marker = `gatehouse-monitor-${crypto.randomUUID()}`;
    const seen = new Promise<void>((resolve) => waiters.set(marker, resolve));
    await redisCall(port, ['ECHO', marker]);
    await seen;
    waiters.delete(marker);
  };
  await mark();
  lines = [];
  return {
    async take() {
      await mark();
      const taken = lines.filter(([name]) => name !== 'echo' && name !== 'ping');
      lines = [];
      return taken;
    },
    stop: () => socket.destroy(),
  };
}
