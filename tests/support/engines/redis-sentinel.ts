/**
 * A real Redis Sentinel setup on this machine for tests: a primary, a replica of it and three
 * Sentinels (quorum 2) monitoring it, every one a `redis-server` process (Sentinels as
 * `redis-server <config> --sentinel`, what Debian's `redis-sentinel` runs) on free loopback ports
 * in a temporary directory. `startRedisSentinel` resolves once the replica is in sync and every
 * Sentinel knows the replica and the other Sentinels (without which they cannot agree on a
 * failover); `stop()` ends the processes and removes the directory. Skip a suite with
 * {@link redisProcessesMissing} when the binaries are absent.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  freePorts,
  infoFields,
  type RedisProcess,
  redisCall,
  redisCommand,
  redisWorkDir,
  startRedisProcess,
  stopRedisProcesses,
  waitFor,
} from './redis-server.js';

export { redisProcessesMissing } from './redis-server.js';

/** A running primary, replica and three Sentinels (see the module comment). */
export interface RedisSentinelSetup {
  /** The name the Sentinels monitor the primary under (`REDIS_SENTINEL_NAME`). */
  readonly name: string;
  /** The two data nodes; which one is the primary changes with each failover. */
  readonly servers: readonly [RedisProcess, RedisProcess];
  readonly sentinels: readonly RedisProcess[];
  /** `127.0.0.1:<port>,…` of the Sentinels: the value of `REDIS_SENTINELS`. */
  readonly sentinelList: string;
  /** The primary the Sentinels name now. */
  primary(): Promise<RedisProcess>;
  /** The data node that is not {@link primary}. */
  replica(): Promise<RedisProcess>;
  /**
   * `SENTINEL FAILOVER`: the Sentinels promote the replica (no agreement needed) and demote the
   * primary, which becomes the new primary's replica. Resolves once every Sentinel names the new
   * primary and it answers as one.
   */
  failover(): Promise<{ from: RedisProcess; to: RedisProcess }>;
  /**
   * `kill -9` of the primary: the Sentinels see it down after `down-after-milliseconds`, agree and
   * promote the replica. Resolves once every Sentinel names the new primary and it answers as one;
   * the killed process stays down until {@link restart}.
   */
  killPrimary(): Promise<{ killed: RedisProcess; promoted: RedisProcess }>;
  /** Starts a killed node again and resolves once the Sentinels made it the primary's replica, in sync. */
  restart(node: RedisProcess): Promise<void>;
  /** Resolves once the replica is connected to the primary and has everything it wrote. */
  waitInSync(timeoutMs?: number): Promise<void>;
  /** Stops every process and removes the directory. */
  stop(): Promise<void>;
}

/** Options of {@link startRedisSentinel}. */
export interface RedisSentinelOptions {
  /** The monitored name. Default `gatehouse`. */
  readonly name?: string;
  /** `down-after-milliseconds`: how long the primary may not answer before it is failed over. Default 1000. */
  readonly downAfterMs?: number;
}

/** Starts a primary, a replica and three Sentinels (see the module comment). */
export async function startRedisSentinel(options: RedisSentinelOptions = {}): Promise<RedisSentinelSetup> {
  const name = options.name ?? 'gatehouse';
  const dir = redisWorkDir('redis-sentinel');
  const [primaryPort, replicaPort, ...sentinelPorts] = await freePorts(5);
  const processes: RedisProcess[] = [];
  try {
    const first = await startRedisProcess({ port: primaryPort!, dir: join(dir, String(primaryPort)) });
    processes.push(first);
    const second = await startRedisProcess({
      port: replicaPort!,
      dir: join(dir, String(replicaPort)),
      args: ['--replicaof', '127.0.0.1', String(primaryPort)],
    });
    processes.push(second);
    const sentinels = await Promise.all(
      sentinelPorts.map((port) => {
        const home = join(dir, String(port));
        const config = join(dir, `sentinel-${port}.conf`);
        writeFileSync(
          config,
          [
            `sentinel monitor ${name} 127.0.0.1 ${primaryPort} 2`,
            `sentinel down-after-milliseconds ${name} ${options.downAfterMs ?? 1000}`,
            // Also the pause before the same Sentinels may fail the name over again (twice this).
            `sentinel failover-timeout ${name} 2000`,
            `sentinel parallel-syncs ${name} 1`,
            '',
          ].join('\n'),
        );
        return startRedisProcess({ port, dir: home, sentinel: config });
      }),
    );
    processes.push(...sentinels);
    const servers = [first, second] as const;
    const byPort = (port: number) => servers.find((server) => server.port === port)!;

    /** The primary's port as a Sentinel names it. */
    const namedBy = async (sentinel: RedisProcess) => {
      const reply = await redisCall(sentinel.port, ['SENTINEL', 'GET-MASTER-ADDR-BY-NAME', name]);
      return Number((reply as string[])[1]);
    };
    const role = async (server: RedisProcess) =>
      infoFields(await redisCall(server.port, ['INFO', 'replication']));

    /** Resolves once every Sentinel names `port` the primary and it answers as one. */
    const settledOn = async (port: number) => {
      await waitFor(`every Sentinel to name :${port} the primary`, async () => {
        for (const sentinel of sentinels) if ((await namedBy(sentinel)) !== port) return undefined;
        return (await role(byPort(port))).role === 'master' ? true : undefined;
      });
    };

    const setup: RedisSentinelSetup = {
      name,
      servers,
      sentinels,
      sentinelList: sentinelPorts.map((port) => `127.0.0.1:${port}`).join(','),
      primary: async () => byPort(await namedBy(sentinels[0]!)),
      async replica() {
        const primary = await setup.primary();
        return servers.find((server) => server !== primary)!;
      },
      async failover() {
        const from = await setup.primary();
        const to = await setup.replica();
        await waitFor('a Sentinel to start the failover', async () => {
          const reply = await redisCommand(sentinels[0]!.port, ['SENTINEL', 'FAILOVER', name]);
          // INPROG or NOGOODSLAVE right after another failover: asked again until it starts.
          return reply instanceof Error ? undefined : true;
        });
        await settledOn(to.port);
        return { from, to };
      },
      async killPrimary() {
        const killed = await setup.primary();
        const promoted = await setup.replica();
        await killed.kill();
        await settledOn(promoted.port);
        return { killed, promoted };
      },
      async restart(node) {
        await node.start();
        await setup.waitInSync(30_000);
      },
      async waitInSync(timeoutMs = 15_000) {
        await waitFor(
          'the replica to be in sync with the primary',
          async () => {
            const primary = await setup.primary();
            const replica = servers.find((server) => server !== primary)!;
            if (!replica.running) return undefined;
            const [atPrimary, atReplica] = [await role(primary), await role(replica)];
            if (atReplica.role !== 'slave' || Number(atReplica.master_port) !== primary.port)
              return undefined;
            if (atReplica.master_link_status !== 'up') return undefined;
            return atReplica.master_repl_offset === atPrimary.master_repl_offset ? true : undefined;
          },
          timeoutMs,
        );
      },
      stop: () => stopRedisProcesses(processes, dir),
    };

    // Sentinels find the replica (INFO of the primary) and each other (hello messages every 2 s).
    await setup.waitInSync();
    await waitFor(
      'every Sentinel to know the replica and the two other Sentinels',
      async () => {
        for (const sentinel of sentinels) {
          const master = (await redisCall(sentinel.port, ['SENTINEL', 'MASTER', name])) as string[];
          const fields = Object.fromEntries(
            master.flatMap((value, i) => (i % 2 === 0 ? [[value, master[i + 1]]] : [])),
          );
          if (fields['num-slaves'] !== '1' || fields['num-other-sentinels'] !== '2') return undefined;
        }
        return true;
      },
      20_000,
    );
    return setup;
  } catch (error) {
    await stopRedisProcesses(processes, dir);
    throw error;
  }
}
