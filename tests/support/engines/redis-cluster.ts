/**
 * A real Redis Cluster on this machine for tests: `masters` masters and as many replicas each
 * (default three and one), every node a `redis-server --cluster-enabled yes` on free loopback
 * ports in a temporary directory, joined by `redis-cli --cluster create … --cluster-replicas`.
 * `startRedisCluster` resolves once every node says `cluster_state:ok`; `stop()` ends the
 * processes and removes the directory. Skip a suite with {@link redisProcessesMissing} when the
 * binaries are absent.
 */
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import {
  freePorts,
  infoFields,
  type RedisProcess,
  redisCall,
  redisWorkDir,
  startRedisProcess,
  stopRedisProcesses,
  waitFor,
} from './redis-server.js';

export { redisProcessesMissing } from './redis-server.js';

const run = promisify(execFile);

/** A node as `CLUSTER NODES` describes it. */
export interface ClusterNodeView {
  readonly id: string;
  readonly port: number;
  readonly role: 'master' | 'replica';
  /** `fail` or `fail?` in its flags: the cluster (or the asking node) thinks it is down. */
  readonly failing: boolean;
  /** A replica's master's id. */
  readonly masterId: string | undefined;
  /** The slot ranges a master serves, e.g. `[[0, 5460]]`. */
  readonly slots: readonly (readonly [number, number])[];
}

/** A running Redis Cluster (see the module comment). */
export interface RedisCluster {
  /** Every node's process, in port order (masters and replicas as first created). */
  readonly nodes: readonly RedisProcess[];
  /** `127.0.0.1:<port>,…` of every node: the value of `REDIS_CLUSTER_NODES`. */
  readonly nodeList: string;
  /** Every node's address, as ioredis's `Cluster` takes its seeds. */
  readonly seeds: readonly { readonly host: string; readonly port: number }[];
  /** `CLUSTER NODES` as seen from a running node. */
  view(): Promise<ClusterNodeView[]>;
  /** `CLUSTER KEYSLOT key`: the slot the cluster itself computes for `key`. */
  keySlot(key: string): Promise<number>;
  /** The process of the master serving `slot` now. */
  masterOf(slot: number): Promise<RedisProcess>;
  /** The processes of the current masters. */
  masters(): Promise<RedisProcess[]>;
  /** A replica of `master` (its process), if one is up. */
  replicaOf(master: RedisProcess): Promise<RedisProcess | undefined>;
  /**
   * `CLUSTER FAILOVER` at `replica` (a manual failover: the master hands over after the replica
   * caught up, no acknowledged write lost); resolves once the replica is a master and the cluster ok.
   */
  failover(replica: RedisProcess): Promise<void>;
  /**
   * `kill -9` of `master`: resolves once its replica took over (after `cluster-node-timeout` and an
   * election) and the cluster is ok again. The killed process stays down until its `start()`, after
   * which it rejoins as the new master's replica (see {@link waitHealthy}).
   */
  killMaster(master: RedisProcess): Promise<{ promoted: RedisProcess }>;
  /** Resolves once every running node says `cluster_state:ok` and sees no other running node failing. */
  waitHealthy(timeoutMs?: number): Promise<void>;
  /** Per command name, the calls every master served since the last {@link resetStats} (`INFO commandstats`). */
  commandCalls(): Promise<Record<string, number>>;
  /** `CONFIG RESETSTAT` on every node. */
  resetStats(): Promise<void>;
  /** Stops every node and removes the directory. */
  stop(): Promise<void>;
}

/** Options of {@link startRedisCluster}. */
export interface RedisClusterOptions {
  /** Masters (default 3). */
  readonly masters?: number;
  /** Replicas per master (default 1). */
  readonly replicasPerMaster?: number;
  /**
   * `cluster-node-timeout` in ms (default 2000): how long a node may be unreachable before the
   * others fail it over. Short, so that a test sees a failover within seconds.
   */
  readonly nodeTimeoutMs?: number;
}

/** Parses a `CLUSTER NODES` reply. */
export function parseClusterNodes(text: string): ClusterNodeView[] {
  return text
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line) => {
      const [id, address, flags, master, , , , , ...slots] = line.trim().split(' ');
      const flagList = flags!.split(',');
      return {
        id: id!,
        port: Number(address!.split('@')[0]!.split(':').at(-1)),
        role: flagList.includes('master') ? ('master' as const) : ('replica' as const),
        failing: flagList.includes('fail') || flagList.includes('fail?'),
        masterId: master === '-' ? undefined : master,
        slots: slots
          .filter((slot) => !slot.startsWith('['))
          .map((slot) => {
            const [from, to] = slot.split('-').map(Number);
            return [from!, to ?? from!] as const;
          }),
      };
    });
}

/** Starts a Redis Cluster (see the module comment). */
export async function startRedisCluster(options: RedisClusterOptions = {}): Promise<RedisCluster> {
  const masterCount = options.masters ?? 3;
  const replicas = options.replicasPerMaster ?? 1;
  const dir = redisWorkDir('redis-cluster');
  const ports = (await freePorts(masterCount * (1 + replicas), 10_000)).sort((a, b) => a - b);
  const nodes: RedisProcess[] = [];
  try {
    nodes.push(
      ...(await Promise.all(
        ports.map((port) =>
          startRedisProcess({
            port,
            dir: join(dir, String(port)),
            args: [
              '--cluster-enabled',
              'yes',
              '--cluster-config-file',
              'nodes.conf',
              '--cluster-node-timeout',
              String(options.nodeTimeoutMs ?? 2000),
              // A replica of a master killed at any moment still takes over (no staleness bound).
              '--cluster-replica-validity-factor',
              '0',
            ],
          }),
        ),
      )),
    );
    const addresses = ports.map((port) => `127.0.0.1:${port}`);
    await run(
      'redis-cli',
      ['--cluster', 'create', ...addresses, '--cluster-replicas', String(replicas), '--cluster-yes'],
      { timeout: 60_000 },
    );
  } catch (error) {
    await stopRedisProcesses(nodes, dir);
    throw error;
  }

  const anyRunning = () => {
    const node = nodes.find((candidate) => candidate.running);
    if (!node) throw new Error('no cluster node is running');
    return node;
  };
  const viewFrom = async (node: RedisProcess) =>
    parseClusterNodes(String(await redisCall(node.port, ['CLUSTER', 'NODES'])));
  const byPort = (port: number) => nodes.find((node) => node.port === port)!;

  const cluster: RedisCluster = {
    nodes,
    nodeList: ports.map((port) => `127.0.0.1:${port}`).join(','),
    seeds: ports.map((port) => ({ host: '127.0.0.1', port })),
    view: () => viewFrom(anyRunning()),
    async keySlot(key) {
      return Number(await redisCall(anyRunning().port, ['CLUSTER', 'KEYSLOT', key]));
    },
    async masterOf(slot) {
      const master = (await cluster.view()).find(
        (node) => node.role === 'master' && node.slots.some(([from, to]) => from <= slot && slot <= to),
      );
      if (!master) throw new Error(`no master serves slot ${slot}`);
      return byPort(master.port);
    },
    async masters() {
      return (await cluster.view())
        .filter((node) => node.role === 'master' && node.slots.length > 0)
        .map((node) => byPort(node.port));
    },
    async replicaOf(master) {
      const view = await cluster.view();
      const id = view.find((node) => node.port === master.port)?.id;
      const replica = view.find((node) => node.masterId === id && !node.failing);
      return replica && byPort(replica.port);
    },
    async failover(replica) {
      await redisCall(replica.port, ['CLUSTER', 'FAILOVER']);
      await waitFor(`:${replica.port} to become a master`, async () => {
        const role = infoFields(await redisCall(replica.port, ['INFO', 'replication'])).role;
        return role === 'master' ? true : undefined;
      });
      await cluster.waitHealthy();
    },
    async killMaster(master) {
      const promoted = await cluster.replicaOf(master);
      if (!promoted) throw new Error(`:${master.port} has no replica up`);
      await master.kill();
      await waitFor(`:${promoted.port} to take over from :${master.port}`, async () => {
        const role = infoFields(await redisCall(promoted.port, ['INFO', 'replication'])).role;
        return role === 'master' ? true : undefined;
      });
      await cluster.waitHealthy();
      return { promoted };
    },
    async waitHealthy(timeoutMs = 20_000) {
      await waitFor(
        'every running cluster node to say cluster_state:ok',
        async () => {
          for (const node of nodes.filter((candidate) => candidate.running)) {
            const info = infoFields(await redisCall(node.port, ['CLUSTER', 'INFO']));
            if (info.cluster_state !== 'ok' || info.cluster_slots_ok !== '16384') return undefined;
            const view = await viewFrom(node);
            const runningPorts = new Set(nodes.filter((n) => n.running).map((n) => n.port));
            if (view.some((seen) => seen.failing && runningPorts.has(seen.port))) return undefined;
          }
          return true;
        },
        timeoutMs,
      );
    },
    async commandCalls() {
      const calls: Record<string, number> = {};
      for (const master of await cluster.masters()) {
        const stats = infoFields(await redisCall(master.port, ['INFO', 'commandstats']));
        for (const [field, value] of Object.entries(stats)) {
          const name = field.replace(/^cmdstat_/, '');
          calls[name] = (calls[name] ?? 0) + Number(/calls=(\d+)/.exec(value)?.[1] ?? 0);
        }
      }
      return calls;
    },
    async resetStats() {
      await Promise.all(
        nodes.filter((node) => node.running).map((node) => redisCall(node.port, ['CONFIG', 'RESETSTAT'])),
      );
    },
    stop: () => stopRedisProcesses(nodes, dir),
  };
  try {
    await cluster.waitHealthy(30_000);
    // Replicas are announced by gossip: wait until every node sees the whole topology.
    await waitFor('every node to see every master and replica', async () => {
      for (const node of nodes) {
        const view = await viewFrom(node);
        const serving = view.filter((seen) => seen.role === 'master' && seen.slots.length > 0);
        const following = view.filter((seen) => seen.role === 'replica' && seen.masterId !== undefined);
        if (serving.length !== masterCount || following.length !== masterCount * replicas) return undefined;
      }
      return true;
    });
  } catch (error) {
    await cluster.stop();
    throw error;
  }
  return cluster;
}
