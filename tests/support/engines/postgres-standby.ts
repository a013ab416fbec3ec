/**
 * A PostgreSQL primary and a streaming standby on one machine, for failover tests: the standby is a
 * `pg_basebackup -R` of the primary (it streams the primary's WAL from then on), and
 * {@link PostgresPair.failover} is what an operator (or Patroni) does when the primary dies: kill it,
 * promote the standby. Clients find the new primary through a connection string that lists both
 * hosts with `target_session_attrs=read-write` ({@link PostgresPair.url}).
 */
import { join } from 'node:path';
import { type PostgresServer, postgresBinDir, startPostgres } from './postgres-server.js';
import { runServerTool, serverDirectory, waitFor } from './processes.js';

/** Options of {@link startStandby}. */
export interface StandbyOptions {
  /**
   * Synchronous replication (`synchronous_standby_names = '*'` on the primary): a commit is
   * acknowledged once the standby has flushed it, so a failover loses no acknowledged write (and
   * writes wait while the standby is down). Default `true`.
   */
  readonly synchronous?: boolean;
}

/** Makes a standby of `primary` from a base backup and starts it streaming. */
export async function startStandby(
  primary: PostgresServer,
  options: StandbyOptions = {},
): Promise<PostgresServer> {
  const directory = serverDirectory('gatehouse-pg-standby-');
  const dataDir = join(directory, 'data');
  await runServerTool(join(postgresBinDir()!, 'pg_basebackup'), [
    '-h',
    primary.host,
    '-p',
    String(primary.port),
    '-U',
    'postgres',
    '-D',
    dataDir,
    '-R', // standby.signal and primary_conninfo: a standby streaming from the primary
    '-X',
    'stream',
    '--checkpoint=fast',
    '--no-sync', // the standby's copy; it fsyncs what it writes from then on
  ]);
  const standby = await startPostgres({ dataDir, directory, settings: { hot_standby: 'on' } });
  await waitFor(
    async () =>
      Number(await primary.sql("SELECT count(*) FROM pg_stat_replication WHERE state = 'streaming'")) > 0,
    'the standby to stream',
  );
  if (options.synchronous ?? true) {
    await primary.sql("ALTER SYSTEM SET synchronous_standby_names = '*'");
    await primary.sql('SELECT pg_reload_conf()');
    await waitFor(
      async () => (await primary.sql('SELECT sync_state FROM pg_stat_replication')) === 'sync',
      'the standby to replicate synchronously',
    );
  }
  return standby;
}

/** A primary and its standby. */
export interface PostgresPair {
  readonly primary: PostgresServer;
  readonly standby: PostgresServer;
  /**
   * `postgres://postgres@127.0.0.1:<primary>,127.0.0.1:<standby>/<database>?target_session_attrs=read-write`:
   * a client connects to whichever of the two accepts writes.
   */
  url(database?: string): string;
  /**
   * The failover: the primary is killed (SIGKILL to all its processes) and the standby promoted.
   * Resolves once the standby accepts writes, with the milliseconds it took.
   */
  failover(): Promise<number>;
  destroy(): Promise<void>;
}

/** Starts a primary, creates `database` on it, and starts a synchronous standby of it. */
export async function startPrimaryAndStandby(
  database = 'gatehouse',
  options: StandbyOptions = {},
): Promise<PostgresPair> {
  const primary = await startPostgres();
  try {
    await primary.sql(`CREATE DATABASE ${database}`);
    const standby = await startStandby(primary, options);
    return {
      primary,
      standby,
      url: (name = database) =>
        `postgres://postgres@127.0.0.1:${primary.port},127.0.0.1:${standby.port}/${name}?target_session_attrs=read-write`,
      async failover() {
        const started = Date.now();
        await primary.kill();
        await standby.promote();
        return Date.now() - started;
      },
      async destroy() {
        await Promise.all([primary.destroy(), standby.destroy()]);
      },
    };
  } catch (error) {
    await primary.destroy();
    throw error;
  }
}
