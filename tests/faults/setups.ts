/**
 * The engine setups of the fault campaign and the faults each takes. A setup starts its own
 * servers (never the machine's DATABASE_URL / REDIS_URL ones, which other tests share), says what
 * environment the application processes get, and lists its faults. Another setup (Redis Cluster,
 * Sentinel: `../support/engines/redis-cluster.ts`, `redis-sentinel.ts`) joins the campaign by
 * being added to {@link SETUPS}.
 */

import type { Fleet } from '../support/engines/app-processes.js';
import { pgbouncerProblem, startPgBouncer } from '../support/engines/pgbouncer.js';
import { postgresServerProblem, startPostgres } from '../support/engines/postgres-server.js';
import { startPrimaryAndStandby } from '../support/engines/postgres-standby.js';
import { redisServerProblem, startRedisServer } from '../support/engines/redis-standalone.js';
import { startTcpFaultProxy, type TcpFaultProxy } from '../support/engines/tcp-fault-proxy.js';

/** What a fault acts on besides the engine: the application processes. */
export interface FaultContext {
  readonly fleet: Fleet;
}

/** A fault, as the campaign lists it (known before the setup starts). */
export interface FaultSpec {
  /** Names its actions in {@link RunningSetup.actions}. */
  readonly kind: string;
  readonly name: string;
  /** How long it is held before it is ended, ms. */
  readonly holdMs: number;
}

/** What puts a fault in place and ends it. */
export interface FaultActions {
  inject(context: FaultContext): Promise<void>;
  /** Ends the fault; resolves once the engine (or process) is back. */
  restore(context: FaultContext): Promise<void>;
}

/** A setup's servers, started. */
export interface RunningSetup {
  /** The application processes' engine environment (`GATEHOUSE_STORE`, URLs). */
  readonly env: Readonly<Record<string, string>>;
  /** The actions of each of the setup's faults, by kind. */
  readonly actions: Readonly<Record<string, FaultActions>>;
  stop(): Promise<void>;
}

/** An engine setup of the campaign. */
export interface EngineSetup {
  readonly name: string;
  /** How many application processes share the engine. */
  readonly processes: number;
  /**
   * `true` where an acknowledged grant must survive every fault (PostgreSQL: a commit is on disk,
   * and on the standby with synchronous replication); otherwise the figure is stated, not asserted.
   */
  readonly durable: boolean;
  readonly faults: readonly FaultSpec[];
  /** Why it cannot run here, or `undefined`. */
  problem(): string | undefined;
  start(): Promise<RunningSetup>;
}

/**
 * How long a pause or a cut lasts: longer than the processes' storage timeout (1 s), and than the
 * Redis client's command timeout (2 s). `FAULTS_HOLD_MS` holds them longer, for a run by hand.
 */
const HOLD_MS = Number(process.env.FAULTS_HOLD_MS ?? 3000);

/** The faults of a server that can be killed and paused, reached through a proxy. */
function serverFaults(what: string): FaultSpec[] {
  return [
    { kind: 'kill', name: `${what} killed (SIGKILL) and restarted`, holdMs: HOLD_MS },
    { kind: 'pause', name: `${what} paused (SIGSTOP) for ${HOLD_MS / 1000} s`, holdMs: HOLD_MS },
    {
      kind: 'cut',
      name: `network to ${what} cut (connections reset, port closed) for ${HOLD_MS / 1000} s`,
      holdMs: HOLD_MS,
    },
    {
      kind: 'stall',
      name: `network to ${what} stalled (no byte through) for ${HOLD_MS / 1000} s`,
      holdMs: HOLD_MS,
    },
  ];
}

/** The actions of {@link serverFaults}. */
function serverActions(
  server: { kill(): Promise<void>; start(): Promise<void>; pause(): void; resume(): void },
  proxy: TcpFaultProxy,
): Record<string, FaultActions> {
  return {
    kill: { inject: () => server.kill(), restore: () => server.start() },
    pause: { inject: async () => server.pause(), restore: async () => server.resume() },
    cut: { inject: () => proxy.cut(), restore: () => proxy.restore() },
    stall: { inject: async () => proxy.stall(), restore: () => proxy.restore() },
  };
}

const DATABASE = 'gatehouse';

export const SETUPS: readonly EngineSetup[] = [
  {
    name: 'Redis (standalone)',
    processes: 2,
    durable: false,
    faults: serverFaults('Redis'),
    problem: redisServerProblem,
    async start() {
      const redis = await startRedisServer({ appendOnly: true });
      const proxy = await startTcpFaultProxy({ host: '127.0.0.1', port: redis.port });
      return {
        env: { GATEHOUSE_STORE: 'redis', REDIS_URL: `redis://127.0.0.1:${proxy.port}` },
        actions: serverActions(redis, proxy),
        async stop() {
          await proxy.close();
          await redis.destroy();
        },
      };
    },
  },
  {
    name: 'PostgreSQL',
    processes: 2,
    durable: true,
    faults: serverFaults('PostgreSQL'),
    problem: postgresServerProblem,
    async start() {
      const postgres = await startPostgres();
      await postgres.sql(`CREATE DATABASE ${DATABASE}`);
      const proxy = await startTcpFaultProxy({ host: '127.0.0.1', port: postgres.port });
      return {
        env: {
          GATEHOUSE_STORE: 'postgres',
          DATABASE_URL: `postgres://postgres@127.0.0.1:${proxy.port}/${DATABASE}`,
        },
        actions: serverActions(postgres, proxy),
        async stop() {
          await proxy.close();
          await postgres.destroy();
        },
      };
    },
  },
  {
    name: 'PostgreSQL with a standby',
    processes: 2,
    durable: true,
    faults: [
      {
        kind: 'failover',
        name: 'failover: primary killed (SIGKILL), standby promoted 1 s later',
        holdMs: 1000,
      },
    ],
    problem: postgresServerProblem,
    async start() {
      const pair = await startPrimaryAndStandby(DATABASE);
      return {
        // Both hosts, as libpq reads them: each new connection finds the one that accepts writes.
        env: { GATEHOUSE_STORE: 'postgres', DATABASE_URL: pair.url() },
        actions: { failover: { inject: () => pair.primary.kill(), restore: () => pair.standby.promote() } },
        stop: () => pair.destroy(),
      };
    },
  },
  {
    name: 'PostgreSQL through PgBouncer (transaction mode)',
    processes: 2,
    durable: true,
    faults: [
      ...serverFaults('PostgreSQL').slice(0, 3),
      { kind: 'bouncer', name: 'PgBouncer killed (SIGKILL) and restarted', holdMs: HOLD_MS },
    ],
    problem: () => postgresServerProblem() ?? pgbouncerProblem(),
    async start() {
      const postgres = await startPostgres();
      await postgres.sql(`CREATE DATABASE ${DATABASE}`);
      // PgBouncer reaches PostgreSQL through the proxy; so does the engine's direct LISTEN connection.
      const proxy = await startTcpFaultProxy({ host: '127.0.0.1', port: postgres.port });
      const bouncer = await startPgBouncer({ upstream: { host: '127.0.0.1', port: proxy.port } });
      return {
        env: {
          GATEHOUSE_STORE: 'postgres',
          DATABASE_URL: bouncer.url(DATABASE),
          DATABASE_DIRECT_URL: `postgres://postgres@127.0.0.1:${proxy.port}/${DATABASE}`,
        },
        actions: {
          ...serverActions(postgres, proxy),
          bouncer: { inject: () => bouncer.kill(), restore: () => bouncer.start() },
        },
        async stop() {
          await bouncer.stop();
          await proxy.close();
          await postgres.destroy();
        },
      };
    },
  },
  {
    name: 'Several processes (3, PostgreSQL)',
    processes: 3,
    durable: true,
    faults: [
      { kind: 'app', name: 'one application process killed (kill -9), restarted 3 s later', holdMs: HOLD_MS },
    ],
    problem: postgresServerProblem,
    async start() {
      const postgres = await startPostgres();
      await postgres.sql(`CREATE DATABASE ${DATABASE}`);
      return {
        env: { GATEHOUSE_STORE: 'postgres', DATABASE_URL: postgres.url(DATABASE) },
        actions: { app: { inject: ({ fleet }) => fleet.kill(1), restore: ({ fleet }) => fleet.restart(1) } },
        stop: () => postgres.destroy(),
      };
    },
  },
];
