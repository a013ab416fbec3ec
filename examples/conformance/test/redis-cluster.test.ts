/**
 * The demo as `pnpm start` serves it (the Express example) on a real Redis Cluster of three masters
 * and three replicas, started here: `GATEHOUSE_STORE=redis REDIS_CLUSTER_NODES=127.0.0.1:…,…`.
 * Every conformance flow runs against it (the code flow through the login form, code exchange,
 * refresh with rotation and reuse detection, revocation, introspection, userinfo, client
 * authentication, the device flow, DPoP, PAR, the portal), plus RFC 8693 token exchange with the
 * demo's agent, and the keys the server wrote are found on the cluster's masters.
 */
import { DEMO, DEMO_INSTANCES } from '@gatehousejs/demo';
import { afterAll, beforeAll, expect, it } from 'vitest';
import {
  type RedisCluster,
  redisProcessesMissing,
  startRedisCluster,
} from '../../../tests/support/engines/redis-cluster.js';
import { redisCall } from '../../../tests/support/engines/redis-server.js';
import { conformanceSuite } from '../src/flows.js';
import { basic, FORM, instanceClient } from '../src/instance-client.js';
import { TARGETS } from '../src/targets.js';

const missing = redisProcessesMissing();
const namespace = `conformance_cluster_${crypto.randomUUID().replaceAll('-', '').slice(0, 12)}`;
// Read by the target when its suite starts it, after the cluster below is up.
const env: Record<string, string> = { GATEHOUSE_STORE: 'redis', GATEHOUSE_STORE_NAMESPACE: namespace };
let cluster: RedisCluster | undefined;

beforeAll(async () => {
  if (missing) return;
  cluster = await startRedisCluster();
  env.REDIS_CLUSTER_NODES = cluster.nodeList;
}, 60_000);
afterAll(async () => {
  await cluster?.stop();
});

conformanceSuite(
  { ...TARGETS.express, name: 'express on a Redis Cluster', env },
  {
    title: 'the demo (pnpm start) on a Redis Cluster of 3 masters and 3 replicas',
    instances: DEMO_INSTANCES,
    ...(missing ? { skip: missing } : {}),
    also(server) {
      it("exchanges a demo user's token for one for the MCP server (RFC 8693), act.sub = demo-agent", async () => {
        const client = instanceClient(server().origin, 'demo');
        // A token of the code flow for the demo client (scope tickets:read, which the agent may carry on).
        const { tokens } = await client.signedInTokens();
        const subjectToken = tokens.access_token;
        const exchanged = await fetch(client.at('/oauth2/v1/token'), {
          method: 'POST',
          headers: {
            'Content-Type': FORM,
            Authorization: basic(DEMO.agentClient.id, DEMO.agentClient.secret),
          },
          body: new URLSearchParams({
            grant_type: 'urn:ietf:params:oauth:grant-type:token-exchange',
            subject_token: subjectToken,
            subject_token_type: 'urn:ietf:params:oauth:token-type:access_token',
            resource: server().origin + DEMO.mcp.path,
          }),
        });
        expect(exchanged.status).toBe(200);
        const { access_token: delegated } = (await exchanged.json()) as { access_token: string };
        // Introspected by the agent, the client the token was issued to.
        const agent = basic(DEMO.agentClient.id, DEMO.agentClient.secret);
        const state = (await (await client.introspect(delegated, agent)).json()) as Record<string, unknown>;
        expect(state).toMatchObject({ active: true, sub: DEMO.user.id, act: { sub: DEMO.agentClient.id } });
      });

      it("keeps the server's records on the cluster's masters, spread over all three", async () => {
        const holding: number[] = [];
        for (const master of await cluster!.masters()) {
          const [, keys] = (await redisCall(master.port, [
            'SCAN',
            0,
            'MATCH',
            `${namespace}:*`,
            'COUNT',
            100_000,
          ])) as [string, string[]];
          if (keys.length > 0) holding.push(master.port);
        }
        expect(holding).toHaveLength(3);
      });
    },
  },
);
