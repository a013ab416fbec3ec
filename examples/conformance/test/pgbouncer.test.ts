/**
 * The demo host on PostgreSQL through PgBouncer in transaction pooling mode, started as its README
 * says (`GATEHOUSE_STORE=postgres`, `DATABASE_URL` the pooler, `DATABASE_DIRECT_URL` PostgreSQL
 * itself for the `LISTEN` connection): the whole conformance suite (browser flow, code exchange,
 * refresh, revocation, device flow, introspection, userinfo, the portal) against both instances,
 * and an RFC 8693 token exchange by the demo agent. PgBouncer (Debian's) is started by the test in
 * front of DATABASE_URL's server; without either the suite is skipped, saying why.
 */
import { DEMO, DEMO_INSTANCES } from '@gatehousejs/demo';
import { postgresEngine } from '@gatehousejs/postgres';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type PgBouncer,
  pgbouncerProblem,
  startPgBouncer,
} from '../../../tests/support/engines/pgbouncer.js';
import { signIn } from '../src/code-flow.js';
import { conformanceSuite } from '../src/flows.js';
import { TARGETS } from '../src/targets.js';

const url = process.env.DATABASE_URL;
const problem = url ? pgbouncerProblem() : 'DATABASE_URL is not set';
if (problem && url && process.env.GATEHOUSE_FAULTS_REQUIRED === '1')
  throw new Error(`the demo through PgBouncer cannot run: ${problem}`);
if (problem) console.warn(`conformance through PgBouncer skipped: ${problem}`);

const namespace = `gatehouse_pgbouncer_${crypto.randomUUID().replaceAll('-', '').slice(0, 12)}`;
/** Filled once PgBouncer listens, before the target starts (read by its beforeAll). */
const env: Record<string, string> = {};
const FORM = 'application/x-www-form-urlencoded';
const basic = (id: string, secret: string) => `Basic ${Buffer.from(`${id}:${secret}`).toString('base64')}`;

describe.skipIf(problem)('the demo on PostgreSQL through PgBouncer (transaction mode)', () => {
  let bouncer: PgBouncer;
  beforeAll(async () => {
    const direct = new URL(url!);
    bouncer = await startPgBouncer({
      upstream: { host: direct.hostname, port: Number(direct.port || 5432) },
    });
    Object.assign(env, {
      GATEHOUSE_STORE: 'postgres',
      GATEHOUSE_STORE_NAMESPACE: namespace,
      DATABASE_URL: bouncer.url(direct.pathname.slice(1)),
      DATABASE_DIRECT_URL: url!,
    });
  }, 30_000);
  afterAll(async () => {
    const engine = postgresEngine({ connectionString: url!, sweepIntervalMs: 0 });
    await engine.pool.query(`DROP SCHEMA IF EXISTS "${namespace}" CASCADE`);
    await engine.close();
    await bouncer?.stop();
  });

  conformanceSuite(
    { ...TARGETS.core, name: 'core through PgBouncer', env },
    {
      instances: DEMO_INSTANCES,
      also: (server) => {
        it('exchanges a user’s access token for the MCP server’s as the demo agent (RFC 8693)', async () => {
          const { origin } = server();
          const flow = await signIn({
            issuer: `${origin}/demo`,
            origin,
            clientId: DEMO.client.id,
            redirectUri: `${origin}/callback`,
            scope: 'openid tickets:read',
            username: DEMO.user.username,
            password: DEMO.user.password,
          });
          const code = await fetch(`${origin}/demo/oauth2/v1/token`, {
            method: 'POST',
            headers: { 'Content-Type': FORM, Authorization: basic(DEMO.client.id, DEMO.client.secret) },
            body: new URLSearchParams({
              grant_type: 'authorization_code',
              code: flow.callback.get('code')!,
              redirect_uri: `${origin}/callback`,
              code_verifier: flow.verifier,
            }),
          });
          expect(code.status).toBe(200);
          const { access_token: subject } = (await code.json()) as { access_token: string };
          const exchanged = await fetch(`${origin}/demo/oauth2/v1/token`, {
            method: 'POST',
            headers: {
              'Content-Type': FORM,
              Authorization: basic(DEMO.agentClient.id, DEMO.agentClient.secret),
            },
            body: new URLSearchParams({
              grant_type: 'urn:ietf:params:oauth:grant-type:token-exchange',
              subject_token: subject,
              subject_token_type: 'urn:ietf:params:oauth:token-type:access_token',
              resource: origin + DEMO.mcp.path,
              scope: DEMO.mcp.scope,
            }),
          });
          expect(exchanged.status).toBe(200);
          const { access_token: delegated } = (await exchanged.json()) as { access_token: string };
          const claims = JSON.parse(Buffer.from(delegated.split('.')[1]!, 'base64url').toString());
          expect(claims).toMatchObject({
            sub: DEMO.user.id,
            aud: origin + DEMO.mcp.path,
            act: { sub: DEMO.agentClient.id },
          });
        });
        it('kept its records in PostgreSQL, in its schema, reached through PgBouncer', async () => {
          const engine = postgresEngine({ connectionString: env.DATABASE_URL!, sweepIntervalMs: 0 });
          try {
            const { rows } = await engine.pool.query<{ count: string }>(
              `SELECT count(*) FROM "${namespace}".refresh_tokens`,
            );
            expect(Number(rows[0]!.count)).toBeGreaterThan(0);
          } finally {
            await engine.close();
          }
        });
      },
    },
  );
});
