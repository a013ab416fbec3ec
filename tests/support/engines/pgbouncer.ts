/**
 * PgBouncer (Debian's `pgbouncer`) in front of a PostgreSQL server, on a free loopback port, in
 * **transaction** pooling mode by default: each transaction (for the engine, each statement) may run
 * on another server connection, so session state (named prepared statements before PgBouncer 1.21,
 * `LISTEN`, `SET`) does not carry from one statement to the next. Runs in the foreground as a child
 * of the test (as the `postgres` user when the tests run as root: PgBouncer refuses root).
 */
import { execFileSync } from 'node:child_process';
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { connect } from 'node:net';
import { join } from 'node:path';
import {
  findExecutable,
  freePort,
  killTree,
  type ServerChild,
  serverDirectory,
  serverUserProblem,
  signalTree,
  spawnServer,
  waitFor,
} from './processes.js';

const BINARY = ['pgbouncer', '/usr/sbin/pgbouncer'];

/** Why PgBouncer cannot be run here (with the fix), or `undefined` when it can. */
export function pgbouncerProblem(): string | undefined {
  if (!findExecutable(BINARY)) return 'pgbouncer is not installed (apt-get install pgbouncer)';
  return serverUserProblem();
}

/** PgBouncer's version, e.g. `1.18.0`. */
export function pgbouncerVersion(): string {
  const output = execFileSync(findExecutable(BINARY)!, ['--version'], { encoding: 'utf8' });
  return /PgBouncer (\S+)/.exec(output)?.[1] ?? 'unknown';
}

/** A running PgBouncer. */
export interface PgBouncer {
  readonly port: number;
  /** `postgres://postgres@127.0.0.1:<port>/<database>`: through the pooler. */
  url(database: string): string;
  pid(): number | undefined;
  /** SIGKILL. */
  kill(): Promise<void>;
  /** Starts it again (same port and configuration). */
  start(): Promise<void>;
  pause(): void;
  resume(): void;
  stop(): Promise<void>;
}

/** Options of {@link startPgBouncer}. */
export interface PgBouncerOptions {
  /** The server it pools connections to. */
  readonly upstream: { readonly host: string; readonly port: number };
  /** Default `transaction`. */
  readonly poolMode?: 'session' | 'transaction' | 'statement';
  /** Server connections per database and user. Default 20. */
  readonly poolSize?: number;
}

/**
 * Starts PgBouncer for every database of `upstream` as `postgres` (`auth_type = any`: loopback
 * only). The engine's pools send `statement_timeout` as a startup parameter, which PgBouncer
 * refuses unless it is listed in `ignore_startup_parameters` (as here): behind PgBouncer that
 * session setting is not applied anyway, the engine's `query_timeout` and Gatehouse's
 * `storageTimeoutMs` still bound every call. `server_login_retry = 1`: after PostgreSQL comes back,
 * PgBouncer tries it again within a second (its default waits 15).
 */
export async function startPgBouncer(options: PgBouncerOptions): Promise<PgBouncer> {
  const problem = pgbouncerProblem();
  if (problem) throw new Error(problem);
  const directory = serverDirectory('gatehouse-pgbouncer-');
  const port = await freePort();
  const config = join(directory, 'pgbouncer.ini');
  const log = join(directory, 'pgbouncer.log');
  writeFileSync(
    config,
    `[databases]
* = host=${options.upstream.host} port=${options.upstream.port} user=postgres

[pgbouncer]
listen_addr = 127.0.0.1
listen_port = ${port}
unix_socket_dir =
auth_type = any
pool_mode = ${options.poolMode ?? 'transaction'}
default_pool_size = ${options.poolSize ?? 20}
max_client_conn = 1000
ignore_startup_parameters = extra_float_digits,statement_timeout
server_login_retry = 1
server_connect_timeout = 2
query_wait_timeout = 10
logfile = ${log}
`,
    { mode: 0o644 },
  );
  let child: ServerChild | undefined;
  const start = async () => {
    if (child && !child.hasExited()) return;
    const started = spawnServer(findExecutable(BINARY)!, [config], join(directory, 'stderr.log'));
    child = started;
    await waitFor(
      () =>
        new Promise<boolean>((resolve) => {
          const socket = connect(port, '127.0.0.1');
          socket.once('connect', () => {
            socket.destroy();
            resolve(true);
          });
          socket.once('error', () => resolve(false));
        }),
      `PgBouncer on port ${port}`,
      {
        hopeless: () =>
          started.hasExited()
            ? `it exited:\n${readFileSync(join(directory, 'stderr.log'), 'utf8').slice(-2000)}`
            : undefined,
      },
    );
  };
  const pid = () => (child && !child.hasExited() ? child.pid : undefined);
  await start();
  return {
    port,
    url: (database) => `postgres://postgres@127.0.0.1:${port}/${database}`,
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
    async stop() {
      const running = pid();
      if (running !== undefined) {
        signalTree(running, 'SIGCONT');
        await killTree(running);
      }
      await child?.exited;
      rmSync(directory, { recursive: true, force: true });
    },
  };
}
