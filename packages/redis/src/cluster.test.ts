/**
 * The Redis engine on a real Redis Cluster (three masters, three replicas, started here on free
 * ports): the storage conformance suite with its pushed-revocation cases, slot placement as the
 * cluster itself computes it (`CLUSTER KEYSLOT`), commands and round trips per operation next to a
 * single server's, the channel following a failover, and two server processes under load through
 * a manual failover and a `kill -9` of a master.
 */
import {
  type GrantStore,
  hashSecret,
  type RefreshTokenRecord,
  type RevocationListener,
} from '@gatehousejs/core/engine';
import { runStorageConformance } from '@gatehousejs/core/testing';
import {
  failFastClusterOptions,
  type RedisEngine,
  type RedisStorage,
  redisEngine,
  redisStorage,
} from '@gatehousejs/redis';
import { Cluster, Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type RedisCluster,
  redisProcessesMissing,
  startRedisCluster,
} from '../../../tests/support/engines/redis-cluster.js';
import {
  freePorts,
  monitorRedis,
  type RedisProcess,
  redisCall,
  redisWorkDir,
  startRedisProcess,
  stopRedisProcesses,
} from '../../../tests/support/engines/redis-server.js';
import type { ServerProcess } from '../../core/test/scale-out/processes.js';
import { dropPrefix } from '../test/drop-prefix.js';
import {
  expectRows,
  type FaultRow,
  faultRow,
  faultTable,
  type LoadServers,
  redeemedTwice,
  startLoadServers,
  steadyLoad,
  untilRecovered,
} from '../test/steady-load.js';
import { keyLayout } from './keys.js';

const missing = redisProcessesMissing();
if (missing) console.warn(`@gatehousejs/redis: ${missing}; skipping the Redis Cluster tests.`);

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

const codeOf = async (now: number, userId = crypto.randomUUID()) => ({
  codeHash: await hashSecret(crypto.randomUUID()),
  clientId: 'c',
  userId,
  grantId: crypto.randomUUID(),
  redirectUri: 'https://app.example/cb',
  scope: 'openid',
  authTime: now,
  expiresAt: now + 60_000,
});
const refreshOf = async (now: number, grantId: string, userId: string): Promise<RefreshTokenRecord> => ({
  tokenHash: await hashSecret(crypto.randomUUID()),
  grantId,
  clientId: 'c',
  subject: { kind: 'user', userId },
  scope: 'openid',
  issuedAt: now,
  expiresAt: now + 3_600_000,
});

/**
 * Counts what `run` sends from this process: commands, and round trips (a command sent while none
 * is awaiting its reply starts one; commands sent to several nodes together share it). Every
 * command of ioredis, Cluster or not, leaves through `Redis.prototype.sendCommand`. The first run
 * of a script on a node costs a NOSCRIPT answer and an EVAL (one command and one round trip
 * more), once per node and script: counted apart, in `scriptLoads`.
 */
async function counted(run: () => Promise<unknown>) {
  const original = Redis.prototype.sendCommand;
  const commands: string[] = [];
  let roundTrips = 0;
  let scriptLoads = 0;
  let refused = 0;
  let awaiting = 0;
  Redis.prototype.sendCommand = function (this: Redis, command, ...rest) {
    if (command.name === 'cluster') return original.call(this, command, ...rest); // slot-map refresh
    commands.push(command.name);
    // The EVAL answering a NOSCRIPT is the script's load, not a step of the operation.
    const load = command.name === 'eval' && refused > 0;
    if (load) {
      refused--;
      scriptLoads++;
    }
    if (awaiting++ === 0 && !load) roundTrips++;
    // Registered before the caller's own continuation, so the count drops before it sends more.
    command.promise.then(
      () => awaiting--,
      (error: Error) => {
        awaiting--;
        if (error.message.startsWith('NOSCRIPT')) refused++;
      },
    );
    return original.call(this, command, ...rest);
  } as typeof original;
  try {
    await run();
  } finally {
    Redis.prototype.sendCommand = original;
  }
  return { commands, roundTrips, sent: commands.length - scriptLoads, scriptLoads };
}

describe.skipIf(missing)('redis engine on a Redis Cluster (3 masters, 3 replicas)', () => {
  let cluster: RedisCluster;
  const prefix = `gatehouse-cluster-${crypto.randomUUID()}`;
  const peers: RedisEngine[] = [];
  const opened: RedisEngine[] = [];

  beforeAll(async () => {
    cluster = await startRedisCluster();
  }, 60_000);
  afterAll(async () => {
    for (const engine of opened) await engine.close();
    await cluster?.stop();
  });

  const open = async (options: { prefix?: string } = {}) => {
    const engine = redisEngine({ cluster: cluster.nodeList.split(','), prefix: options.prefix ?? prefix });
    await engine.ready();
    opened.push(engine);
    return engine;
  };
  const storageOn = async (): Promise<RedisStorage> => {
    const storage = redisStorage({ cluster: cluster.nodeList.split(','), prefix });
    await storage.ready();
    opened.push(storage as unknown as RedisEngine);
    return storage;
  };

  runStorageConformance(
    {
      name: 'redis cluster',
      create: () => open(),
      async cleanup(engine) {
        await dropPrefix(engine as RedisEngine, prefix);
        for (const peer of peers) {
          await peer.close();
          peer.client.disconnect();
        }
      },
      // Another process: its own Cluster client, its connections named so that its subscribers can be found.
      async peer() {
        const options = failFastClusterOptions();
        const client = new Cluster(cluster.seeds.slice(), {
          ...options,
          redisOptions: { ...options.redisOptions, connectionName: `peer-${crypto.randomUUID()}` },
        });
        const peer = redisEngine({ client, prefix });
        await peer.ready();
        peers.push(peer);
        return peer;
      },
      // CLIENT KILL of the peer's subscriber connections, on every master: they reconnect by themselves.
      async cutChannel(peer) {
        const client = (peer as RedisEngine).client as Cluster;
        const name = client.options.redisOptions!.connectionName!;
        for (const master of await cluster.masters()) {
          const list = String(await redisCall(master.port, ['CLIENT', 'LIST']));
          for (const line of list.split('\n')) {
            if (line.includes(` name=${name} `) && / sub=[1-9]/.test(line))
              await redisCall(master.port, ['CLIENT', 'KILL', 'ID', line.match(/^id=(\d+)/)![1]!]);
          }
        }
      },
    },
    { describe, it, expect, afterAll },
  );

  it('places every key where the cluster computes its slot: a grant in one slot, the rest spread', async () => {
    const placement = `${prefix}-slots`;
    const engine = await open({ prefix: placement });
    const storage = engine.instance('https://issuer.example');
    const now = Date.now();
    const grantIds: string[] = [];
    // 40 grants: all on two of three masters by chance is 3 · (2/3)^40, about 3e-7.
    for (let i = 0; i < 40; i++) {
      const code = await codeOf(now);
      grantIds.push(code.grantId);
      await storage.grants.saveCode(code);
      expect(await storage.grants.findCode(code.codeHash, now)).toEqual(code);
      const issued = await refreshOf(now, code.grantId, code.userId);
      expect((await storage.grants.redeemCode(code.codeHash, issued, now, now + 600_000)).status).toBe(
        'redeemed',
      );
      await storage.grants.revokeGrant(code.grantId, now + 60_000);
      await storage.kv.set(`session:${i}`, 'v', now + 60_000);
      await storage.clients.saveClient(
        {
          client: { id: `client-${i}`, type: 'public', redirectUris: ['https://app.example/cb'] },
          registeredAt: now,
        },
        { maxClients: 100, partition: `net:${i % 3}` },
      );
    }
    // Every key, found by SCAN on the master that holds it.
    const found: { key: string; slot: number; master: number }[] = [];
    for (const master of await cluster.masters()) {
      let cursor = '0';
      do {
        const [next, keys] = (await redisCall(master.port, [
          'SCAN',
          cursor,
          'MATCH',
          `${placement}:*`,
          'COUNT',
          1000,
        ])) as [string, string[]];
        for (const key of keys) found.push({ key, slot: await cluster.keySlot(key), master: master.port });
        cursor = next;
      } while (cursor !== '0');
    }
    expect(found.length).toBeGreaterThan(40 * 6);
    // Each key lives on the master that serves the slot the cluster computes for it.
    for (const { key, slot, master } of found)
      expect({ key, at: (await cluster.masterOf(slot)).port }).toEqual({ key, at: master });
    // A grant's code, refresh token and marker (every key a script touches): one slot per grant.
    for (const grantId of grantIds) {
      const slots = new Set(
        found.filter(({ key }) => key.includes(`:g:${grantId}}`)).map(({ slot }) => slot),
      );
      expect(found.filter(({ key }) => key.includes(`:g:${grantId}}`)).length).toBe(3);
      expect(slots.size).toBe(1);
    }
    // The client registry: one slot. Grants, pointers and sessions: spread over every master.
    const registry = new Set(found.filter(({ key }) => key.includes(':clients}')).map(({ slot }) => slot));
    expect(registry.size).toBe(1);
    const spread = (part: string) =>
      new Set(found.filter(({ key }) => key.includes(part)).map(({ master }) => master)).size;
    expect(spread(':g:')).toBe(3);
    expect(spread(':kv:session:')).toBe(3);
    expect(spread(':rt:')).toBe(3);
    await dropPrefix(engine, placement);
  });

  /** One instance's grant operations, each as Gatehouse calls it, and what it sent. */
  const costs = async (grants: GrantStore, kv: RedisStorage['kv']) => {
    const now = Date.now();
    const userId = crypto.randomUUID();
    const code = await codeOf(now, userId);
    const issued = await refreshOf(now, code.grantId, userId);
    const next = await refreshOf(now + 1, code.grantId, userId);
    const jti = crypto.randomUUID();
    return {
      'save a code (authorization endpoint)': await counted(() => grants.saveCode(code)),
      'redeem a code (findCode + redeemCode)': await counted(async () => {
        await grants.findCode(code.codeHash, now);
        expect((await grants.redeemCode(code.codeHash, issued, now, now + 600_000)).status).toBe('redeemed');
      }),
      'refresh (findRefreshToken + rotateRefreshToken)': await counted(async () => {
        await grants.findRefreshToken(issued.tokenHash, now + 1);
        expect((await grants.rotateRefreshToken(issued.tokenHash, next, now + 1)).status).toBe('rotated');
      }),
      'bearer check without the mirror (isRevoked)': await counted(async () =>
        grants.isRevoked(jti, code.grantId, now + 1, userId, now),
      ),
      'revoke a grant': await counted(() => grants.revokeGrant(code.grantId, now + 60_000)),
      'read a session (kv get)': await counted(() => kv.get(`session:${jti}`, now)),
      'write a session (kv set)': await counted(() => kv.set(`session:${jti}`, 'v', now + 60_000)),
    };
  };

  // One retry: right after the failover test, a master's MONITOR can miss the client's reconnection
  // commands on a loaded machine; the counts themselves are deterministic.
  it('costs per operation: commands (MONITOR on every master) and round trips, next to a single server', {
    retry: 1,
  }, async () => {
    // A single server of its own, so that MONITOR sees this test's commands only.
    const dir = redisWorkDir('redis-single');
    const [port] = await freePorts(1);
    const single: RedisProcess = await startRedisProcess({ port: port!, dir });
    const onServer = redisStorage({ url: `redis://127.0.0.1:${port}`, prefix });
    const onCluster = await storageOn();
    try {
      await onServer.ready();
      // Once first, so that opening connections is not counted.
      await costs(onServer.grants, onServer.kv);
      await costs(onCluster.grants, onCluster.kv);
      const monitors = [await monitorRedis(port!)];
      const serverCosts = await costs(onServer.grants, onServer.kv);
      const serverCommands = await monitors[0]!.take();
      monitors[0]!.stop();
      const masters = await cluster.masters();
      const clusterMonitors = await Promise.all(masters.map((master) => monitorRedis(master.port)));
      const clusterCosts = await costs(onCluster.grants, onCluster.kv);
      const clusterCommands = (await Promise.all(clusterMonitors.map((monitor) => monitor.take()))).flat();
      for (const monitor of clusterMonitors) monitor.stop();
      // The servers ran what the client sent, no more (slot-map refreshes aside).
      const sent = (all: Record<string, { commands: string[] }>) =>
        Object.values(all).flatMap((c) => c.commands);
      expect(serverCommands.map(([name]) => name).sort()).toEqual(sent(serverCosts).sort());
      expect(
        clusterCommands
          .map(([name]) => name)
          .filter((name) => name !== 'cluster')
          .sort(),
      ).toEqual(sent(clusterCosts).sort());

      const rows = Object.keys(serverCosts).map((operation) => {
        const server = serverCosts[operation as keyof typeof serverCosts];
        const onNodes = clusterCosts[operation as keyof typeof clusterCosts];
        return `| ${operation} | ${server.roundTrips} | ${server.sent} | ${onNodes.roundTrips} | ${onNodes.sent} |`;
      });
      console.log(
        [
          '| operation | single server: round trips | commands | cluster: round trips | commands |',
          '| --- | --- | --- | --- | --- |',
          ...rows,
        ].join('\n'),
      );
      // What docs say (packages/redis/README.md, "Round trips per grant" and "Cluster").
      const trips = (all: Record<string, { roundTrips: number }>) =>
        Object.fromEntries(Object.entries(all).map(([operation, { roundTrips }]) => [operation, roundTrips]));
      expect(trips(serverCosts)).toEqual({
        'save a code (authorization endpoint)': 1,
        'redeem a code (findCode + redeemCode)': 2,
        'refresh (findRefreshToken + rotateRefreshToken)': 2,
        'bearer check without the mirror (isRevoked)': 1,
        'revoke a grant': 1,
        'read a session (kv get)': 1,
        'write a session (kv set)': 1,
      });
      expect(trips(clusterCosts)).toEqual({
        'save a code (authorization endpoint)': 2,
        'redeem a code (findCode + redeemCode)': 4,
        'refresh (findRefreshToken + rotateRefreshToken)': 4,
        'bearer check without the mirror (isRevoked)': 1,
        'revoke a grant': 1,
        'read a session (kv get)': 1,
        'write a session (kv set)': 1,
      });
    } finally {
      await dropPrefix(onServer, prefix);
      await onServer.close();
      await stopRedisProcesses([single], dir);
    }
  });

  it('follows a failover: the channel is subscribed anew on the new masters, and nothing revoked is missed', async () => {
    const engine = await open();
    const instanceId = `failover-${crypto.randomUUID()}`;
    const instance = engine.instance(instanceId);
    const events: string[] = [];
    const echoes = new Set<string>();
    const listener: RevocationListener = {
      connected: () => events.push('connected'),
      lost: () => events.push('lost'),
      revoked: (event) => events.push(`${event.kind}:${event.id}`),
      echoed: (probeId) => echoes.add(probeId),
    };
    const subscription = instance.grants.watchRevocations!(listener);
    const until = async (what: string, test: () => boolean) => {
      for (const deadline = Date.now() + 15_000; !test(); ) {
        if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}: ${events.join(', ')}`);
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
    };
    const roundTrip = async () => {
      const probeId = crypto.randomUUID();
      await subscription.probe(probeId);
      await until(`the echo of ${probeId}`, () => echoes.has(probeId));
    };
    await until('the subscription', () => events.includes('connected'));
    await roundTrip();

    // A manual failover of the master holding a grant: its replica takes the slot.
    const grantId = crypto.randomUUID();
    const master = await cluster.masterOf(
      await cluster.keySlot(keyLayout(prefix, instanceId).revokedGrant(grantId)),
    );
    const promoted = (await cluster.replicaOf(master))!;
    await cluster.failover(promoted);
    // The client learns it (a refresh of the slot map, or a probe landing on the demoted master).
    await until('the channel lost and subscribed on the new masters', () => {
      void subscription.probe(crypto.randomUUID()).catch(() => {});
      const lost = events.lastIndexOf('lost');
      return lost >= 0 && events.lastIndexOf('connected') > lost;
    });
    expect((engine.client as Cluster).nodes('master').map((node) => node.options.port)).toContain(
      promoted.port,
    );

    // A revocation committed on the promoted master arrives before a probe sent after it.
    await instance.grants.revokeGrant(grantId, Date.now() + 60_000);
    await roundTrip();
    expect(events).toContain(`grant:${grantId}`);
    expect(await instance.grants.isRevoked('jti', grantId, Date.now())).toBe(true);
    subscription.unsubscribe();
  });

  describe('failovers under load, two server processes', () => {
    let servers: readonly ServerProcess[] = [];
    let storage: RedisStorage;
    let running: LoadServers | undefined;

    beforeAll(async () => {
      running = await startLoadServers(
        { REDIS_CLUSTER_NODES: cluster.nodeList },
        { cluster: cluster.nodeList.split(',') },
      );
      ({ servers, storage } = running);
    }, 60_000);
    afterAll(async () => {
      await running?.stop();
    });

    it('follows CLUSTER FAILOVER and kill -9 of a master: 503 with Retry-After meanwhile, nothing accepted twice', async () => {
      const load = steadyLoad({ servers: servers.map((server) => server.base), storage, maxLagMs: 1000 });
      const { record } = load;
      const rows: FaultRow[] = [];
      try {
        await load.mintCodes(150);
        let fault = Date.now();
        await sleep(2000);
        rows.push(faultRow('none (2 s of steady load)', record, fault, Date.now()));

        // A manual failover: the master stops taking writes, its replica catches up, then takes over.
        const [first, second] = await cluster.masters();
        fault = Date.now();
        await cluster.failover((await cluster.replicaOf(first!))!);
        await untilRecovered(record, fault);
        rows.push(faultRow('CLUSTER FAILOVER of a master', record, fault, Date.now()));

        // kill -9: its replica takes over after cluster-node-timeout (2 s) and an election; the
        // killed node, started again at once, rejoins as the new master's replica.
        await load.mintCodes(150);
        fault = Date.now();
        await cluster.killMaster(second!);
        await second!.start();
        await cluster.waitHealthy();
        await untilRecovered(record, fault);
        rows.push(faultRow('kill -9 of a master (restarted at once)', record, fault, Date.now()));
      } finally {
        await load.stop();
      }
      console.log(faultTable(rows));
      const twice = await redeemedTwice(record, servers[0]!.base);
      console.log(
        `redeemed twice: ${JSON.stringify(twice)}; requests ${record.answers.length}, rotations ${record.rotated.length}`,
      );
      // Asynchronous replication: a write the killed master acknowledged may be lost (printed).
      expectRows(rows, { lossless: false });
      expect(rows[1]).toMatchObject({ acceptedAfterLag: 0, lostAcknowledged: 0 });
      expect(record.rotated.length).toBeGreaterThan(10);
    }, 120_000);
  });
});
