/**
 * Scale-out scenarios every shared storage engine must pass: several Gatehouse processes on one
 * engine behave as one authorization server, and an unreachable engine means 503, never a wrong
 * answer or a half-done write. Each engine's test calls {@link scaleOutSuite}.
 */
import { type GatehouseStorage, generateKeys } from '@gatehousejs/core';
import { hashSecret } from '@gatehousejs/core/engine';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTcpFaultProxy, type TcpFaultProxy } from '../../../../tests/support/engines/tcp-fault-proxy.js';
import { type ServerProcess, startServer } from './processes.js';

/** The engine under test. */
export interface ScaleOutEngine {
  /** `GATEHOUSE_STORE` value. */
  readonly store: 'redis' | 'postgres';
  /** The real server, e.g. `redis://127.0.0.1:6379`. */
  readonly url: string;
  /**
   * Opens the engine in the test process on `namespace` (prefix / schema) once the servers created
   * it; used to mint codes and to look at what was (not) written.
   */
  open(namespace: string): Promise<{ storage: GatehouseStorage; drop(): Promise<void> }>;
}

const DEMO_PORT = '3999';
const REDIRECT_URI = `http://localhost:${DEMO_PORT}/callback`;
const CLIENT_AUTH = `Basic ${btoa('demo-client:demo-secret')}`;
const PKCE_VERIFIER = 'dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk';
const PKCE_CHALLENGE = 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM';

interface TokenSet {
  access_token: string;
  refresh_token: string;
}

/** POSTs a form to `{base}{path}` as the demo client. */
function post(base: string, path: string, form: Record<string, string>): Promise<Response> {
  return fetch(base + path, {
    method: 'POST',
    headers: { 'Content-Type': 'application/x-www-form-urlencoded', Authorization: CLIENT_AUTH },
    body: new URLSearchParams(form),
  });
}

const redeem = (base: string, code: string) =>
  post(base, '/oauth2/v1/token', {
    grant_type: 'authorization_code',
    code,
    redirect_uri: REDIRECT_URI,
    code_verifier: PKCE_VERIFIER,
  });
const refresh = (base: string, token: string) =>
  post(base, '/oauth2/v1/token', { grant_type: 'refresh_token', refresh_token: token });
const revoke = (base: string, token: string) => post(base, '/oauth2/v1/revoke', { token });

async function isActive(base: string, token: string): Promise<boolean> {
  const response = await post(base, '/oauth2/v1/introspect', { token });
  expect(response.status).toBe(200);
  return ((await response.json()) as { active: boolean }).active;
}

async function tokens(response: Response): Promise<TokenSet> {
  expect(response.status).toBe(200);
  return (await response.json()) as TokenSet;
}

async function expectError(response: Response, status: number, error: string): Promise<void> {
  expect({ status: response.status, error: ((await response.json()) as { error: string }).error }).toEqual({
    status,
    error,
  });
}

/** Stores a code for the demo client and user, as the authorize endpoint would after login. */
async function mintCode(storage: GatehouseStorage): Promise<string> {
  const code = `code-${crypto.randomUUID()}-${crypto.randomUUID()}`;
  const now = Date.now();
  await storage.grants.saveCode({
    codeHash: await hashSecret(code),
    clientId: 'demo-client',
    userId: 'user-demo',
    grantId: crypto.randomUUID(),
    redirectUri: REDIRECT_URI,
    scope: 'openid offline_access tickets:read', // offline_access: a refresh token for an OpenID request (Core §11)
    codeChallenge: PKCE_CHALLENGE,
    authTime: now,
    expiresAt: now + 60_000,
  });
  return code;
}

function namespaceFor(engine: ScaleOutEngine): string {
  return `gatehouse_scale_${engine.store}_${crypto.randomUUID().replaceAll('-', '').slice(0, 16)}`;
}

async function serverEnv(
  engine: ScaleOutEngine,
  url: string,
  namespace: string,
): Promise<Record<string, string>> {
  return {
    GATEHOUSE_STORE: engine.store,
    [engine.store === 'redis' ? 'REDIS_URL' : 'DATABASE_URL']: url,
    GATEHOUSE_STORE_NAMESPACE: namespace,
    GATEHOUSE_JWK: JSON.stringify(await sharedKey),
    DEMO_PORT,
  };
}
const sharedKey = generateKeys('ES256');

/** Registers the multi-process and fault scenarios for `engine`. */
export function scaleOutSuite(engine: ScaleOutEngine): void {
  describe(`two processes sharing ${engine.store}`, () => {
    const namespace = namespaceFor(engine);
    let a: ServerProcess;
    let b: ServerProcess;
    let direct: Awaited<ReturnType<ScaleOutEngine['open']>>;

    beforeAll(async () => {
      const env = await serverEnv(engine, engine.url, namespace);
      // Started together: for PostgreSQL both run the migrations at once (serialised by an advisory lock).
      [a, b] = await Promise.all([startServer(env), startServer(env)]);
      direct = await engine.open(namespace);
    }, 60_000);
    afterAll(async () => {
      await Promise.all([a?.stop(), b?.stop()]);
      await direct?.drop();
    });

    it('a code issued for one process is redeemed at the other; a replay at the first kills the grant at both', async () => {
      const code = await mintCode(direct.storage);
      const issued = await tokens(await redeem(b.base, code));
      expect(await isActive(a.base, issued.access_token)).toBe(true);
      await expectError(await redeem(a.base, code), 400, 'invalid_grant');
      expect(await isActive(a.base, issued.access_token)).toBe(false);
      expect(await isActive(b.base, issued.access_token)).toBe(false);
      await expectError(await refresh(b.base, issued.refresh_token), 400, 'invalid_grant');
    });

    it('parallel redemptions of one code spread over both processes: exactly one succeeds', async () => {
      const code = await mintCode(direct.storage);
      const responses = await Promise.all(
        Array.from({ length: 20 }, (_, i) => redeem(i % 2 ? a.base : b.base, code)),
      );
      expect(responses.map((response) => response.status).sort()).toEqual([
        200,
        ...Array<number>(19).fill(400),
      ]);
    });

    it('a refresh token rotated at one process and presented at the other is reuse: the grant dies everywhere', async () => {
      const first = await tokens(await redeem(a.base, await mintCode(direct.storage)));
      const second = await tokens(await refresh(a.base, first.refresh_token));
      expect(await isActive(b.base, second.access_token)).toBe(true);

      await expectError(await refresh(b.base, first.refresh_token), 400, 'invalid_grant');
      await expectError(await refresh(a.base, second.refresh_token), 400, 'invalid_grant');
      for (const base of [a.base, b.base]) {
        expect(await isActive(base, first.access_token)).toBe(false);
        expect(await isActive(base, second.access_token)).toBe(false);
      }
    });

    it('a revocation at one process is honoured by the other', async () => {
      const issued = await tokens(await redeem(b.base, await mintCode(direct.storage)));
      expect(await isActive(a.base, issued.access_token)).toBe(true);
      expect((await revoke(a.base, issued.access_token)).status).toBe(200);
      expect(await isActive(b.base, issued.access_token)).toBe(false);

      const other = await tokens(await redeem(a.base, await mintCode(direct.storage)));
      expect((await revoke(b.base, other.refresh_token)).status).toBe(200);
      await expectError(await refresh(a.base, other.refresh_token), 400, 'invalid_grant');
      expect(await isActive(a.base, other.access_token)).toBe(false);
    });
  });

  describe(`pushed revocations on ${engine.store}`, () => {
    const namespace = namespaceFor(engine);
    let proxy: TcpFaultProxy;
    let a: ServerProcess;
    let b: ServerProcess;
    let direct: Awaited<ReturnType<ScaleOutEngine['open']>>;
    const bearerCheck = async (base: string, token: string) =>
      (await fetch(`${base}/bearer-check`, { headers: { Authorization: `Bearer ${token}` } })).status;
    /** Asks `base` until `done(status)` (the test's timeout bounds it), returning every status seen. */
    const pollUntil = async (base: string, token: string, done: (status: number) => boolean) => {
      const seen: number[] = [];
      do {
        seen.push(await bearerCheck(base, token));
        if (!done(seen.at(-1)!)) await new Promise((resolve) => setTimeout(resolve, 50));
      } while (!done(seen.at(-1)!));
      return seen;
    };

    beforeAll(async () => {
      // B reaches the engine through a proxy the test cuts: its channel and its queries alike.
      const target = new URL(engine.url);
      proxy = await startTcpFaultProxy({ host: target.hostname, port: Number(target.port) });
      const proxied = new URL(engine.url);
      proxied.hostname = '127.0.0.1';
      proxied.port = String(proxy.port);
      const pushed = { GATEHOUSE_PUSHED_REVOCATIONS: '1' };
      [a, b] = await Promise.all([
        startServer({ ...(await serverEnv(engine, engine.url, namespace)), ...pushed }),
        startServer({ ...(await serverEnv(engine, proxied.toString(), namespace)), ...pushed }),
      ]);
      direct = await engine.open(namespace);
    }, 60_000);
    afterAll(async () => {
      await Promise.all([a?.stop(), b?.stop()]);
      await proxy?.close();
      await direct?.drop();
    });

    it('a token revoked at one process fails the bearer check at the other (polled), and stays refused', async () => {
      const issued = await tokens(await redeem(a.base, await mintCode(direct.storage)));
      // B checks the token (and subscribes, catches up, probes) until its mirror answers.
      expect(await bearerCheck(b.base, issued.access_token)).toBe(204);
      expect((await revoke(a.base, issued.access_token)).status).toBe(200);
      const seen = await pollUntil(b.base, issued.access_token, (status) => status !== 204);
      expect(seen.at(-1)).toBe(401);
      for (let i = 0; i < 5; i++) expect(await bearerCheck(b.base, issued.access_token)).toBe(401);
      // The grant's other tokens too, once its refresh token is revoked at A (grant revocation).
      const other = await tokens(await redeem(a.base, await mintCode(direct.storage)));
      expect(await bearerCheck(b.base, other.access_token)).toBe(204);
      expect((await revoke(a.base, other.refresh_token)).status).toBe(200);
      expect((await pollUntil(b.base, other.access_token, (status) => status !== 204)).at(-1)).toBe(401);
    });

    it('a revocation made while the channel is cut is honoured once it is restored: never accepted again', async () => {
      const issued = await tokens(await redeem(a.base, await mintCode(direct.storage)));
      await pollUntil(b.base, issued.access_token, (status) => status === 204);
      await proxy.cut();
      expect((await revoke(a.base, issued.access_token)).status).toBe(200);
      // B either still answers within its lag or, once the mirror is not live, asks the engine (503 while cut).
      await pollUntil(b.base, issued.access_token, (status) => status !== 204);
      await proxy.restore();
      const seen = await pollUntil(b.base, issued.access_token, (status) => status === 401);
      expect(seen.filter((status) => status === 204)).toEqual([]);
      for (let i = 0; i < 5; i++) expect(await bearerCheck(b.base, issued.access_token)).toBe(401);
      // And tokens revoked nowhere still pass at B once it reconnected.
      const fresh = await tokens(await redeem(a.base, await mintCode(direct.storage)));
      expect((await pollUntil(b.base, fresh.access_token, (status) => status !== 503)).at(-1)).toBe(204);
    });
  });

  describe(`${engine.store} unreachable`, () => {
    const namespace = namespaceFor(engine);
    let proxy: TcpFaultProxy;
    let server: ServerProcess;
    let direct: Awaited<ReturnType<ScaleOutEngine['open']>>;

    beforeAll(async () => {
      // Read inside the hook: the suite is collected (and skipped) even when the engine is absent.
      const target = new URL(engine.url);
      proxy = await startTcpFaultProxy({ host: target.hostname, port: Number(target.port) });
      const proxied = new URL(engine.url);
      proxied.hostname = '127.0.0.1';
      proxied.port = String(proxy.port);
      server = await startServer(await serverEnv(engine, proxied.toString(), namespace));
      direct = await engine.open(namespace);
    }, 60_000);
    afterAll(async () => {
      await server?.stop();
      await proxy?.close();
      await direct?.drop();
    });

    it('answers 503 temporarily_unavailable, writes nothing, and recovers by itself', async () => {
      const issued = await tokens(await redeem(server.base, await mintCode(direct.storage)));
      const pendingCode = await mintCode(direct.storage);

      await proxy.cut();
      const during = await Promise.all([
        refresh(server.base, issued.refresh_token),
        redeem(server.base, pendingCode),
        post(server.base, '/oauth2/v1/introspect', { token: issued.access_token }),
        revoke(server.base, issued.refresh_token),
      ]);
      for (const response of during) {
        expect(response.status).toBe(503);
        expect(response.headers.get('retry-after')).toBe('1');
        expect(((await response.json()) as { error: string }).error).toBe('temporarily_unavailable');
      }
      // Nothing half-written: the refresh token is not rotated, the code not consumed, the grant not revoked.
      const now = Date.now();
      expect(
        (await direct.storage.grants.findRefreshToken(await hashSecret(issued.refresh_token), now))
          ?.rotatedAt,
      ).toBe(undefined);
      expect((await direct.storage.grants.findCode(await hashSecret(pendingCode), now))?.consumedAt).toBe(
        undefined,
      );

      await proxy.restore();
      // Reconnection is the engine's job; poll a read-only request until it answers.
      let status = 503;
      for (let attempt = 0; attempt < 100 && status === 503; attempt++) {
        status = (await post(server.base, '/oauth2/v1/introspect', { token: issued.access_token })).status;
        if (status === 503) await new Promise((resolve) => setTimeout(resolve, 100));
      }
      expect(status).toBe(200);
      expect(await isActive(server.base, issued.access_token)).toBe(true);
      await tokens(await refresh(server.base, issued.refresh_token));
      await tokens(await redeem(server.base, pendingCode));
    });
  });
}
