/**
 * A standalone Redis server of the test's own (`redis-server` in the foreground, a temporary
 * directory, a free loopback port), which the tests may kill, pause and start again, unlike the
 * machine's server (REDIS_URL). With the append-only file on (the default here), what Redis
 * acknowledged before a `kill -9` is back after the restart: Redis writes each command to the
 * file (the kernel's cache) before it replies, so only a machine crash loses the last second
 * (`appendfsync everysec`).
 */
import { readFileSync, rmSync } from 'node:fs';
import { connect } from 'node:net';
import { join } from 'node:path';
import {
  findExecutable,
  freePort,
  killTree,
  type ServerChild,
  serverDirectory,
  signalTree,
  spawnServer,
  waitFor,
} from './processes.js';

/** Why a Redis server cannot be started here, or `undefined` when it can. */
export function redisServerProblem(): string | undefined {
  return findExecutable(['redis-server']) ? undefined : 'redis-server is not installed';
}

/** A running (or killed, paused) Redis server. */
export interface RedisServer {
  readonly port: number;
  /** `redis://127.0.0.1:<port>`. */
  readonly url: string;
  pid(): number | undefined;
  /** Starts it again on the same port and directory (it reloads its append-only file). */
  start(): Promise<void>;
  /** SIGKILL: no shutdown, no final save. */
  kill(): Promise<void>;
  /** SIGSTOP: connections stay open, nothing answers. */
  pause(): void;
  resume(): void;
  /** Kills it and deletes its directory. */
  destroy(): Promise<void>;
}

/** Options of {@link startRedisServer}. */
export interface RedisServerOptions {
  /** `appendonly yes` with `appendfsync everysec`. Default `true`. */
  readonly appendOnly?: boolean;
}

/** Starts a standalone Redis server with no snapshots (`save ""`). */
export async function startRedisServer(options: RedisServerOptions = {}): Promise<RedisServer> {
  const problem = redisServerProblem();
  if (problem) throw new Error(problem);
  const directory = serverDirectory('gatehouse-redis-');
  const port = await freePort();
  const log = join(directory, 'redis.log');
  const args = [
    '--port',
    String(port),
    '--bind',
    '127.0.0.1',
    '--dir',
    directory,
    '--save',
    '',
    '--appendonly',
    options.appendOnly === false ? 'no' : 'yes',
    '--appendfsync',
    'everysec',
    '--daemonize',
    'no',
  ];
  let child: ServerChild | undefined;
  const pid = () => (child && !child.hasExited() ? child.pid : undefined);
  const start = async () => {
    if (pid() !== undefined) return;
    const started = spawnServer(findExecutable(['redis-server'])!, args, log);
    child = started;
    await waitFor(() => ping(port), `Redis on port ${port}`, {
      hopeless: () =>
        started.hasExited() ? `it exited:\n${readFileSync(log, 'utf8').slice(-2000)}` : undefined,
    });
  };
  await start();
  return {
    port,
    url: `redis://127.0.0.1:${port}`,
    pid,
    start,
    async kill() {
      const running = pid();
      if (running !== undefined) await killTree(running);
      await child?.exited;
    },
    pause() {
      const running = pid();
      if (running !== undefined) signalTree(running, 'SIGSTOP');
    },
    resume() {
      const running = pid();
      if (running !== undefined) signalTree(running, 'SIGCONT');
    },
    async destroy() {
      const running = pid();
      if (running !== undefined) await killTree(running);
      await child?.exited;
      rmSync(directory, { recursive: true, force: true });
    },
  };
}

/** `true` once the server answers PING with PONG (it is loading its file until then). */
function ping(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1');
    let answer = '';
    const done = (ok: boolean) => {
      socket.destroy();
      resolve(ok);
    };
    socket.setTimeout(1000, () => done(false));
    socket.once('error', () => done(false));
    socket.once('connect', () => socket.write('PING\r\n'));
    socket.on('data', (chunk) => {
      answer += chunk;
      if (answer.includes('\r\n')) done(answer.startsWith('+PONG'));
    });
  });
}
