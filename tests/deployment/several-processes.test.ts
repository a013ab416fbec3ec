/**
 * Three application processes behind one port (the balancer of `engines/app-processes.ts`),
 * sharing the machine's Redis and PostgreSQL (REDIS_URL, DATABASE_URL; a namespace of their own):
 * a user signs in through the balancer, the code is exchanged at one process, the refresh token
 * refreshed at another and the access token accepted by every one; a revocation at one process
 * is honoured by the others within the stated lag; signing keys stored and rotated every two
 * seconds (`keyRotation`) while tokens are issued and verified everywhere fail no verification.
 */
import { generateKeys } from '@gatehousejs/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signIn } from '../../examples/conformance/src/code-flow.js';
import { type Fleet, startFleet } from '../support/engines/app-processes.js';
import { dropNamespace } from '../support/engines/namespaces.js';

const LAG_MS = 1000;
const FORM = 'application/x-www-form-urlencoded';
const CLIENT = `Basic ${Buffer.from('app-client:app-secret').toString('base64')}`;
const USER = `Basic ${Buffer.from('load:load-password').toString('base64')}`;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
/** The `kid` of a JWT's protected header (RFC 7515 §4.1.4). */
const kidOf = (jwt: string) =>
  (JSON.parse(Buffer.from(jwt.split('.')[0]!, 'base64url').toString()) as { kid: string }).kid;

const engines = [
  { store: 'redis', variable: 'REDIS_URL' },
  { store: 'postgres', variable: 'DATABASE_URL' },
] as const;

const token = (origin: string, fields: Record<string, string>) =>
  fetch(`${origin}/app/oauth2/v1/token`, {
    method: 'POST',
    headers: { 'Content-Type': FORM, Authorization: CLIENT },
    body: new URLSearchParams(fields),
  });
const me = (origin: string, bearer: string) =>
  fetch(`${origin}/app/api/me`, { headers: { Authorization: `Bearer ${bearer}` } });
const passwordToken = async (origin: string) => {
  const response = await fetch(`${origin}/app/auth/v1/token`, {
    method: 'POST',
    headers: { Authorization: USER },
  });
  expect(response.status).toBe(200);
  return ((await response.json()) as { access_token: string }).access_token;
};

for (const { store, variable } of engines) {
  const url = process.env[variable];
  if (!url) console.warn(`several processes on ${store}: skipped, ${variable} is not set`);

  describe.skipIf(!url)(`three processes behind one port on ${store}`, () => {
    const namespace = `gatehouse_three_${crypto.randomUUID().replaceAll('-', '').slice(0, 12)}`;
    let fleet: Fleet;
    beforeAll(async () => {
      const keys = JSON.stringify([await generateKeys('ES256'), await generateKeys('RS256')]);
      fleet = await startFleet(
        {
          GATEHOUSE_STORE: store,
          [variable]: url!,
          GATEHOUSE_STORE_NAMESPACE: namespace,
          APP_KEYS: keys,
          APP_MAX_LAG_MS: String(LAG_MS),
        },
        3,
      );
    }, 120_000);
    afterAll(async () => {
      await fleet?.stop();
      await dropNamespace(store, url!, namespace);
    });

    it('signs in through the balancer, exchanges the code at one process, refreshes at another, and every process accepts the tokens', async () => {
      const [a, b, c] = fleet.liveOrigins() as [string, string, string];
      const flow = await signIn({
        issuer: `${fleet.origin}/app`,
        origin: fleet.origin,
        clientId: 'app-client',
        redirectUri: `${fleet.origin}/callback`,
        scope: 'openid offline_access',
        username: 'load',
        password: 'load-password',
      });
      const exchanged = await token(a, {
        grant_type: 'authorization_code',
        code: flow.callback.get('code')!,
        redirect_uri: `${fleet.origin}/callback`,
        code_verifier: flow.verifier,
      });
      expect(exchanged.status).toBe(200);
      const first = (await exchanged.json()) as { access_token: string; refresh_token: string };
      const refreshed = await token(b, { grant_type: 'refresh_token', refresh_token: first.refresh_token });
      expect(refreshed.status).toBe(200);
      const second = (await refreshed.json()) as { access_token: string; refresh_token: string };
      for (const origin of [a, b, c]) {
        expect((await me(origin, first.access_token)).status, origin).toBe(200);
        expect((await me(origin, second.access_token)).status, origin).toBe(200);
      }
      // The rotated token, presented at the third process, is a reuse: the grant ends everywhere.
      const reused = await token(c, { grant_type: 'refresh_token', refresh_token: first.refresh_token });
      expect(reused.status).toBe(400);
      expect(
        (await token(a, { grant_type: 'refresh_token', refresh_token: second.refresh_token })).status,
      ).toBe(400);
      // The session cookie of the sign-in is honoured by every process as well.
      const cookie = [...flow.browser.cookies].map(([name, { value }]) => `${name}=${value}`).join('; ');
      for (const origin of [a, b, c]) {
        const response = await fetch(`${origin}/app/api/me`, { headers: { cookie } });
        expect(response.status, origin).toBe(200);
      }
    });

    it(`honours a revocation made at one process at the others within ${LAG_MS} ms`, async () => {
      const [a, b, c] = fleet.liveOrigins() as [string, string, string];
      const seen: number[] = [];
      for (let round = 0; round < 5; round++) {
        const bearer = await passwordToken(a);
        // Both others have the token in their verified-token caches and their mirrors live.
        for (const origin of [b, c]) expect((await me(origin, bearer)).status).toBe(200);
        const revoked = await fetch(`${a}/app/auth/v1/token/revoke`, {
          method: 'POST',
          headers: { Authorization: `Bearer ${bearer}` },
        });
        expect(revoked.status).toBe(200);
        const acknowledged = Date.now();
        const pending = new Set([b, c]);
        while (pending.size > 0 && Date.now() - acknowledged < LAG_MS) {
          for (const origin of pending) if ((await me(origin, bearer)).status === 401) pending.delete(origin);
          await sleep(10);
        }
        seen.push(Date.now() - acknowledged);
        const wait = acknowledged + LAG_MS - Date.now();
        if (wait > 0) await sleep(wait);
        // From the lag on, refused everywhere, whatever the last probe was.
        for (const origin of [a, b, c]) expect((await me(origin, bearer)).status, origin).toBe(401);
      }
      console.info(`${store}: a revocation reached the other processes within ${seen.join(', ')} ms`);
    });
  });
}

for (const { store, variable } of engines) {
  const url = process.env[variable];
  describe.skipIf(!url)(`stored signing keys rotating every 2 s on three processes on ${store}`, () => {
    const namespace = `gatehouse_rotation_${crypto.randomUUID().replaceAll('-', '').slice(0, 12)}`;
    let fleet: Fleet;
    beforeAll(async () => {
      fleet = await startFleet(
        {
          GATEHOUSE_STORE: store,
          [variable]: url!,
          GATEHOUSE_STORE_NAMESPACE: namespace,
          APP_KEK: Buffer.from(crypto.getRandomValues(new Uint8Array(32))).toString('base64url'),
          APP_ROTATE_EVERY: '2',
        },
        3,
      );
    }, 120_000);
    afterAll(async () => {
      await fleet?.stop();
      await dropNamespace(store, url!, namespace);
    });

    it('verifies every token at every process while the keys rotate, with zero failures', async () => {
      const origins = fleet.liveOrigins();
      const kids: string[] = [];
      const live: { bearer: string; until: number }[] = [];
      const failures: string[] = [];
      let issued = 0;
      let verified = 0;
      const until = Date.now() + 12_000;
      while (Date.now() < until) {
        // A token from each process in turn, checked at all three at once; earlier ones again.
        const bearer = await passwordToken(origins[issued % origins.length]!);
        issued++;
        const kid = kidOf(bearer);
        if (!kids.includes(kid)) kids.push(kid);
        live.push({ bearer, until: Date.now() + 7000 });
        const due = live.filter((entry) => entry.until > Date.now()).slice(-6);
        await Promise.all(
          due.flatMap((entry) =>
            origins.map(async (origin) => {
              const status = (await me(origin, entry.bearer)).status;
              verified++;
              if (status !== 200) failures.push(`${kidOf(entry.bearer)} at ${origin}: ${status}`);
            }),
          ),
        );
        await sleep(50);
      }
      console.info(
        `${store}: ${issued} tokens issued, ${verified} verifications, ${kids.length} signing keys, ${failures.length} failures`,
      );
      expect(failures).toEqual([]);
      expect(kids.length).toBeGreaterThanOrEqual(4);
    }, 60_000);
  });
}
