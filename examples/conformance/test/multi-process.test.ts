/**
 * Two processes, one shared engine, 200 instances: process A creates every instance on the fly
 * (its first request to each) and writes through it; process B, started with the same resolver,
 * serves what A wrote, instance by instance and nothing across instances. Codes are redeemed exactly
 * once even when both processes race for one, and a revocation committed in A reaches B's bearer
 * check (pushed revocations) within its lag. On Redis and on PostgreSQL.
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { generateKeys } from '@gatehousejs/core';
import { DEMO } from '@gatehousejs/demo';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signIn } from '../src/code-flow.js';
import { type RunningTarget, startTarget } from '../src/harness.js';

const INSTANCES = 200;
const names = Array.from({ length: INSTANCES }, (_, index) => `tenant-${index}`);
const FORM = 'application/x-www-form-urlencoded';
const CLIENT_AUTH = `Basic ${Buffer.from(`${DEMO.client.id}:${DEMO.client.secret}`).toString('base64')}`;
const USER_AUTH = `Basic ${Buffer.from(`${DEMO.user.username}:${DEMO.user.password}`).toString('base64')}`;

const engines = [
  { kind: 'redis', url: 'REDIS_URL' },
  { kind: 'postgres', url: 'DATABASE_URL' },
] as const;

/** Runs `task` over `items`, `width` at a time (the loopback servers share two cores). */
async function inBatches<T, R>(
  items: readonly T[],
  width: number,
  task: (item: T) => Promise<R>,
): Promise<R[]> {
  const results: R[] = [];
  for (let start = 0; start < items.length; start += width)
    results.push(...(await Promise.all(items.slice(start, start + width).map(task))));
  return results;
}

for (const engine of engines) {
  const url = process.env[engine.url];
  const suite = url ? describe : describe.skip;
  if (!url) console.log(`multi-process test on ${engine.kind} skipped: ${engine.url} is not set`);

  suite(`many instances on ${engine.kind}, two processes`, () => {
    let a: RunningTarget;
    let b: RunningTarget;
    let directory: string;

    beforeAll(async () => {
      directory = mkdtempSync(join(tmpdir(), 'gatehouse-instances-'));
      const keys: Record<string, unknown> = {};
      for (const name of names) keys[name] = await generateKeys();
      const keysFile = join(directory, 'keys.json');
      writeFileSync(keysFile, JSON.stringify(keys));
      const target = {
        name: `many-instances (${engine.kind})`,
        cwd: fileURLToPath(new URL('..', import.meta.url)),
        command: [
          fileURLToPath(new URL('../node_modules/.bin/tsx', import.meta.url)),
          'src/many-instances-server.ts',
        ] as const,
        readyPath: '/healthz',
        env: {
          GATEHOUSE_STORE: engine.kind,
          // A namespace of its own: a fresh key prefix or schema, shared by the two processes only.
          GATEHOUSE_STORE_NAMESPACE: `mp_${randomBytes(6).toString('hex')}`,
          INSTANCE_KEYS: keysFile,
        },
      };
      a = await startTarget(target);
      // Both behind one public origin (as behind a load balancer): one issuer per instance.
      b = await startTarget({ ...target, env: { ...target.env, PUBLIC_ORIGIN: a.origin } });
    }, 180_000);

    afterAll(async () => {
      await Promise.all([a?.stop(), b?.stop()]);
      if (directory) rmSync(directory, { recursive: true, force: true });
    });

    const at = (server: RunningTarget, name: string, path: string) => `${server.origin}/${name}${path}`;
    const introspect = async (server: RunningTarget, name: string, token: string) => {
      const response = await fetch(at(server, name, '/auth/v1/token/introspect'), {
        method: 'POST',
        headers: { Authorization: `Bearer ${token}` },
      });
      return (await response.json()) as { active: boolean; sub?: string; iss?: string };
    };

    it(`serves in B the ${INSTANCES} instances A created, each token only at its own instance`, async () => {
      const tokens = await inBatches(names, 8, async (name) => {
        const response = await fetch(at(a, name, '/auth/v1/token'), {
          method: 'POST',
          headers: { Authorization: USER_AUTH },
        });
        expect(response.status, name).toBe(200);
        return ((await response.json()) as { access_token: string }).access_token;
      });
      await inBatches(names, 8, async (name) => {
        const index = names.indexOf(name);
        const own = await introspect(b, name, tokens[index]!);
        expect(own, name).toMatchObject({ active: true, sub: `user-${name}`, iss: `${a.origin}/${name}` });
        // The next instance has the same username, password and client: the token is still not its.
        const other = names[(index + 1) % INSTANCES]!;
        expect(await introspect(b, other, tokens[index]!), `${name} at ${other}`).toEqual({ active: false });
      });
    }, 240_000);

    const tokenRequest = (server: RunningTarget, name: string, fields: Record<string, string>) =>
      fetch(at(server, name, '/oauth2/v1/token'), {
        method: 'POST',
        headers: { 'Content-Type': FORM, Authorization: CLIENT_AUTH },
        body: new URLSearchParams(fields),
      });

    // Every tenth instance: a code flow per instance is a login, a hash and four requests.
    const sampled = names.filter((_, index) => index % 10 === 0);

    it('redeems each code exactly once across both processes, and never at another instance', async () => {
      for (const name of sampled) {
        const other = names[(names.indexOf(name) + 1) % INSTANCES]!;
        const codeOf = async () => {
          const flow = await signIn({
            issuer: `${a.origin}/${name}`,
            origin: a.origin,
            clientId: DEMO.client.id,
            redirectUri: `${a.origin}/callback`,
            scope: 'openid tickets:read offline_access',
            username: DEMO.user.username,
            password: DEMO.user.password,
          });
          return {
            grant_type: 'authorization_code',
            code: flow.callback.get('code')!,
            redirect_uri: `${a.origin}/callback`,
            code_verifier: flow.verifier,
          };
        };

        const raced = await codeOf();
        // Another instance refuses it, without consuming it for its own.
        const foreign = await tokenRequest(b, other, raced);
        expect(foreign.status, `${name} code at ${other}`).toBe(400);
        expect((await foreign.json()).error).toBe('invalid_grant');
        const race = await Promise.all([tokenRequest(a, name, raced), tokenRequest(b, name, raced)]);
        expect(race.map((response) => response.status).sort(), name).toEqual([200, 400]);
        const loser = race.find((response) => response.status === 400)!;
        expect((await loser.json()).error).toBe('invalid_grant');
        // RFC 6749 §4.1.2: the replay revoked what the code had issued, in both processes.
        const winner = (await race.find((response) => response.status === 200)!.json()) as {
          refresh_token: string;
        };
        const afterReplay = await tokenRequest(a, name, {
          grant_type: 'refresh_token',
          refresh_token: winner.refresh_token,
        });
        expect((await afterReplay.json()).error, `${name} refresh after the code's replay`).toBe(
          'invalid_grant',
        );

        const { refresh_token: refreshToken } = (await (
          await tokenRequest(b, name, await codeOf())
        ).json()) as {
          refresh_token: string;
        };
        const foreignRefresh = await tokenRequest(a, other, {
          grant_type: 'refresh_token',
          refresh_token: refreshToken,
        });
        expect((await foreignRefresh.json()).error, `${name} refresh token at ${other}`).toBe(
          'invalid_grant',
        );
        const refreshed = await tokenRequest(a, name, {
          grant_type: 'refresh_token',
          refresh_token: refreshToken,
        });
        expect(refreshed.status, `${name} refresh in A of a grant B issued`).toBe(200);
      }
    }, 240_000);

    it("honours in B's bearer check a revocation committed in A (pushed), and only at its instance", async () => {
      const [name, other] = [names[7]!, names[8]!];
      const token = async (server: RunningTarget, instance: string) => {
        const response = await fetch(at(server, instance, '/auth/v1/token'), {
          method: 'POST',
          headers: { Authorization: USER_AUTH },
        });
        return ((await response.json()) as { access_token: string }).access_token;
      };
      const revoked = await token(a, name);
      const bystander = await token(a, other);
      // Introspection by bearer verifies the token as the bearer check does (verifyAccessToken),
      // so it consults B's mirror of the instance's revocations while the mirror is live.
      const probe = (server: RunningTarget, instance: string, bearer: string) =>
        fetch(at(server, instance, '/auth/v1/token/introspect'), {
          method: 'POST',
          headers: { Authorization: `Bearer ${bearer}` },
        });
      expect((await (await probe(b, name, revoked)).json()).active).toBe(true);

      const committed = Date.now();
      const revoke = await fetch(at(a, name, '/auth/v1/token/revoke'), {
        method: 'POST',
        headers: { Authorization: `Bearer ${revoked}` },
      });
      expect(revoke.status).toBe(200);
      let lagMs = -1;
      for (const deadline = committed + 10_000; Date.now() < deadline; ) {
        const state = (await (await probe(b, name, revoked)).json()) as { active: boolean };
        if (!state.active) {
          lagMs = Date.now() - committed;
          break;
        }
        await new Promise((resolve) => setTimeout(resolve, 10));
      }
      console.log(`revocation in A seen by B after ${lagMs} ms (${engine.kind})`);
      expect(lagMs, 'B still accepts the token 10 s after A revoked it').toBeGreaterThanOrEqual(0);
      expect((await (await probe(b, other, bystander)).json()).active).toBe(true);
    }, 60_000);
  });
}
