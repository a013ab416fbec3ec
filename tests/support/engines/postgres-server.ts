/**
 * A PostgreSQL server of the test's own: a cluster made by `initdb` in a temporary directory,
 * listening on a free loopback port, with `trust` authentication for `postgres`. Unlike the
 * machine's server (DATABASE_URL), it may be killed, paused, stopped and promoted. The binaries are
 * Debian's (`/usr/lib/postgresql/<version>/bin`, the newest), or `PG_BINDIR`'s. As root, the tools
 * run as the `postgres` user (`initdb` and `pg_ctl` refuse root).
 */
import { execFile } from 'node:child_process';
import { appendFileSync, existsSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import {
  freePort,
  killTree,
  runServerTool,
  type ServerChild,
  serverDirectory,
  serverUserProblem,
  signalTree,
  spawnServer,
  waitFor,
} from './processes.js';

const execFileAsync = promisify(execFile);

/** The directory of `initdb`, `pg_ctl`, `pg_basebackup` and `psql`, or `undefined`. */
export function postgresBinDir(): string | undefined {
  const configured = process.env.PG_BINDIR;
  if (configured) return existsSync(join(configured, 'initdb')) ? configured : undefined;
  const root = '/usr/lib/postgresql';
  if (!existsSync(root)) return undefined;
  const versions = readdirSync(root)
    .filter((version) => existsSync(join(root, version, 'bin', 'initdb')))
    .sort((a, b) => Number(b) - Number(a));
  return versions[0] === undefined ? undefined : join(root, versions[0], 'bin');
}

/** Why the test cannot run PostgreSQL servers of its own, or `undefined` when it can. */
export function postgresServerProblem(): string | undefined {
  if (!postgresBinDir()) return 'PostgreSQL server binaries (initdb, pg_ctl) not found (set PG_BINDIR)';
  return serverUserProblem();
}

/** A running (or stopped, killed, paused) PostgreSQL server of the test's own. */
export interface PostgresServer {
  readonly host: '127.0.0.1';
  readonly port: number;
  readonly dataDir: string;
  /** `postgres://postgres@127.0.0.1:<port>/<database>`. */
  url(database?: string): string;
  /** Runs SQL with `psql` as `postgres` and returns its unaligned output (`-At`). */
  sql(statement: string, database?: string): Promise<string>;
  /** The postmaster's process id, while it runs. */
  pid(): number | undefined;
  /** Starts it again after {@link stop} or {@link kill}; resolves once it accepts connections. */
  start(): Promise<void>;
  /** `pg_ctl stop -m fast`: a clean shutdown. */
  stop(): Promise<void>;
  /** The crash: SIGKILL to the postmaster and every backend, as a lost machine or OOM kill would. */
  kill(): Promise<void>;
  /** SIGSTOP to the postmaster and every backend: connections stay open, nothing answers. */
  pause(): void;
  /** SIGCONT: everything {@link pause} stopped runs on. */
  resume(): void;
  /** `pg_ctl promote`: a standby becomes a primary; resolves once it accepts writes. */
  promote(): Promise<void>;
  /** `true` while the server is a standby (`pg_is_in_recovery()`). */
  inRecovery(): Promise<boolean>;
  /** Stops it (killing it if need be) and deletes its directory. */
  destroy(): Promise<void>;
}

/** Options of {@link startPostgres}. */
export interface PostgresServerOptions {
  /** Extra `postgresql.conf` settings (e.g. `{ max_connections: '200' }`). */
  readonly settings?: Readonly<Record<string, string>>;
  /** A data directory made already (a base backup): `initdb` is skipped. */
  readonly dataDir?: string;
  /** The directory holding `dataDir`, deleted by {@link PostgresServer.destroy}. */
  readonly directory?: string;
}

/** Makes a cluster with `initdb` (unless `dataDir` is given), configures and starts it. */
export async function startPostgres(options: PostgresServerOptions = {}): Promise<PostgresServer> {
  const problem = postgresServerProblem();
  if (problem) throw new Error(problem);
  const bin = postgresBinDir()!;
  const tool = (name: string) => join(bin, name);
  const directory = options.directory ?? serverDirectory('gatehouse-pg-');
  const dataDir = options.dataDir ?? join(directory, 'data');
  if (!options.dataDir) {
    // --no-sync: only initdb's own files skip fsync; the server itself keeps fsync on.
    await runServerTool(tool('initdb'), [
      '-D',
      dataDir,
      '-U',
      'postgres',
      '--auth=trust',
      '-E',
      'UTF8',
      '--no-sync',
    ]);
  }
  const port = await freePort();
  const settings: Record<string, string> = {
    listen_addresses: "'127.0.0.1'",
    port: String(port),
    unix_socket_directories: `'${dataDir}'`,
    max_connections: '100',
    shared_buffers: "'32MB'",
    // Replication from this server (a standby's base backup and stream) over loopback.
    wal_level: 'replica',
    max_wal_senders: '5',
    wal_keep_size: "'64MB'",
    logging_collector: 'off',
    ...options.settings,
  };
  // The last line wins: appended after initdb's (or the primary's, for a base backup) settings.
  appendFileSync(
    join(dataDir, 'postgresql.conf'),
    `\n# gatehouse test server\n${Object.entries(settings)
      .map(([name, value]) => `${name} = ${value}`)
      .join('\n')}\n`,
  );
  const log = join(directory, `postgres-${port}.log`);
  let child: ServerChild | undefined;

  const pid = () => (child && !child.hasExited() ? child.pid : undefined);
  const sql = async (statement: string, database = 'postgres') => {
    const { stdout } = await execFileAsync(
      tool('psql'),
      ['-h', '127.0.0.1', '-p', String(port), '-U', 'postgres', '-d', database, '-X', '-At', '-c', statement],
      { timeout: 20_000 },
    );
    return stdout.trim();
  };
  const start = async () => {
    if (pid() !== undefined) return;
    const started = spawnServer(tool('postgres'), ['-D', dataDir], log);
    child = started;
    await waitFor(
      async () => {
        await execFileAsync(tool('pg_isready'), ['-h', '127.0.0.1', '-p', String(port), '-t', '1']);
        return true;
      },
      `PostgreSQL on port ${port} to accept connections`,
      {
        timeoutMs: 60_000,
        hopeless: () =>
          started.hasExited() ? `it exited:\n${readFileSync(log, 'utf8').slice(-2000)}` : undefined,
      },
    );
  };
  const server: PostgresServer = {
    host: '127.0.0.1',
    port,
    dataDir,
    url: (database = 'postgres') => `postgres://postgres@127.0.0.1:${port}/${database}`,
    sql,
    pid,
    start,
    async stop() {
      const running = child;
      if (!running || running.hasExited()) return;
      server.resume();
      process.kill(running.pid, 'SIGINT'); // "fast" shutdown: roll back open transactions, checkpoint
      await running.exited;
    },
    async kill() {
      const postmaster = pid();
      if (postmaster !== undefined) await killTree(postmaster);
      await child?.exited;
    },
    pause() {
      const postmaster = pid();
      if (postmaster !== undefined) signalTree(postmaster, 'SIGSTOP');
    },
    resume() {
      const postmaster = pid();
      if (postmaster !== undefined) signalTree(postmaster, 'SIGCONT');
    },
    async promote() {
      await runServerTool(tool('pg_ctl'), ['promote', '-D', dataDir, '-w', '-t', '60'], 90_000);
      await waitFor(async () => !(await server.inRecovery()), `the server on ${port} to accept writes`);
    },
    async inRecovery() {
      return (await sql('SELECT pg_is_in_recovery()')) === 't';
    },
    async destroy() {
      const postmaster = pid();
      if (postmaster !== undefined) await killTree(postmaster);
      await child?.exited;
      rmSync(directory, { recursive: true, force: true });
    },
  };
  try {
    await start();
  } catch (error) {
    const output = existsSync(log) ? readFileSync(log, 'utf8') : '';
    rmSync(directory, { recursive: true, force: true });
    throw new Error(`${(error as Error).message}\n${output}`);
  }
  return server;
}
