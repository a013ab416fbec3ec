/**
 * `npx gatehouse admin` against the Express example server, as an operator runs it: the package's
 * binary in a child process, `demo-admin` / `demo-admin-secret` (client credentials, the admin
 * scope) on `demo`. Every command once, a table and `--json`, and the exit codes scripts test:
 * 0 done, 1 refused, 2 wrong command line, 3 unreachable.
 */
import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type DemoServer, freePort, startDemoServer } from './support/demo-server';

const bin = join(
  dirname(createRequire(import.meta.url).resolve('@gatehousejs/core/package.json')),
  'bin/gatehouse.js',
);

interface Run {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
}

function gatehouse(args: readonly string[], env: Record<string, string> = {}): Promise<Run> {
  return new Promise((resolve) => {
    execFile(process.execPath, [bin, ...args], { env: { ...process.env, ...env } }, (error, stdout, stderr) =>
      resolve({ code: error ? Number(error.code ?? 1) : 0, stdout, stderr }),
    );
  });
}

/**
 * `demo` signs in to `demo-client` over plain HTTP (the code flow with PKCE through the built-in
 * login page, cookies carried by hand): a session and a grant of `user-demo`; its refresh token.
 */
async function demoGrant(server: DemoServer): Promise<string> {
  const jar = new Map<string, string>();
  const send = async (url: string, init: RequestInit = {}) => {
    const headers = new Headers(init.headers);
    headers.set('Cookie', [...jar].map(([k, v]) => `${k}=${v}`).join('; '));
    const response = await fetch(url, { ...init, headers, redirect: 'manual' });
    for (const header of response.headers.getSetCookie()) {
      const [pair] = header.split(';');
      const eq = pair!.indexOf('=');
      jar.set(pair!.slice(0, eq), pair!.slice(eq + 1));
    }
    return response;
  };
  const verifier = 'admin-cli-test-verifier-'.padEnd(64, 'v');
  const query = new URLSearchParams({
    response_type: 'code',
    client_id: 'demo-client',
    redirect_uri: `${server.origin}/callback`,
    scope: 'profile',
    state: 'cli',
    code_challenge: createHash('sha256').update(verifier).digest('base64url'),
    code_challenge_method: 'S256',
  });
  const page = { Accept: 'text/html', 'Sec-Fetch-Site': 'same-origin' };
  const start = await send(`${server.issuer}/oauth2/v1/authorize?${query}`, { headers: page });
  const login = await send(new URL(start.headers.get('location')!, server.origin).href, { headers: page });
  const html = await login.text();
  const fields = Object.fromEntries(
    [...html.matchAll(/<input type="hidden" name="([^"]*)" value="([^"]*)">/g)].map((m) => [m[1]!, m[2]!]),
  );
  const posted = await send(`${server.issuer}/login`, {
    method: 'POST',
    headers: { ...page, Origin: server.origin, 'Content-Type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ ...fields, username: 'demo', password: 'demo-password' }),
  });
  const resumed = await send(new URL(posted.headers.get('location')!, server.origin).href, { headers: page });
  const code = new URL(resumed.headers.get('location')!).searchParams.get('code')!;
  const tokens = await fetch(`${server.issuer}/oauth2/v1/token`, {
    method: 'POST',
    headers: {
      Authorization: `Basic ${btoa('demo-client:demo-secret')}`,
      'Content-Type': 'application/x-www-form-urlencoded',
    },
    body: new URLSearchParams({
      grant_type: 'authorization_code',
      code,
      redirect_uri: `${server.origin}/callback`,
      code_verifier: verifier,
    }),
  });
  expect(tokens.status).toBe(200);
  return ((await tokens.json()) as { refresh_token: string }).refresh_token;
}

describe('gatehouse admin against the demo', () => {
  let server: DemoServer;
  let admin: (...args: string[]) => Promise<Run>;

  beforeAll(async () => {
    server = await startDemoServer({ GATEHOUSE_AUDIT: 'off' });
    admin = (...args) =>
      gatehouse(['admin', ...args, '--issuer', server.issuer], {
        GATEHOUSE_CLIENT_ID: 'demo-admin',
        GATEHOUSE_CLIENT_SECRET: 'demo-admin-secret',
      });
  }, 30_000);

  afterAll(async () => {
    await server?.stop();
  });

  it('reads health, metrics, clients, users and the audit trail', async () => {
    const health = await admin('health');
    expect(health).toMatchObject({ code: 0, stderr: '' });
    expect(health.stdout).toMatch(/^status: (ok|degraded)\n/);
    expect((await admin('metrics')).stdout).toMatch(/^COUNTER\s+NAME\s+LAST HOUR\n|^\(none\)\n/);
    const clients = await admin('clients', 'list');
    expect(clients.stdout).toMatch(/demo-client\s+Demo Client\s+host/);
    expect((await admin('clients', 'list', '--self')).code).toBe(0);
    expect((await admin('users', 'find', 'user-demo')).stdout).toMatch(/user-demo\s+demo/);
    const audit = await admin('audit', '--type', 'token.issued', '--limit', '3', '--json');
    expect(audit.code).toBe(0);
    expect(Array.isArray(JSON.parse(audit.stdout).records)).toBe(true);
  }, 60_000);

  it('rotates a key, revokes it, and lists the keys with why the signing key signs', async () => {
    const rotated = JSON.parse((await admin('keys', 'rotate', '--json')).stdout);
    const next = rotated.keys.find((key: { state: string }) => key.state === 'next');
    expect(next).toBeDefined();
    const revoked = await admin('keys', 'revoke', next.kid);
    expect(revoked.code).toBe(0);
    const listed = await admin('keys', 'list');
    expect(listed.stdout).toMatch(new RegExp(`${next.kid}\\s+\\S+\\s+revoked`));
    expect(listed.stdout).toMatch(/\nsigning: \S+ \(.+\)\n/);
  }, 60_000);

  it("lists and revokes a user's sessions and grants, then everything of the user", async () => {
    await demoGrant(server);
    await demoGrant(server);
    const sessions = JSON.parse((await admin('sessions', 'list', 'user-demo', '--json')).stdout).sessions;
    expect(sessions.length).toBeGreaterThanOrEqual(2);
    expect((await admin('sessions', 'revoke', sessions[0].id)).stdout).toBe(
      `Revoked session ${sessions[0].id}.\n`,
    );
    const grants = await admin('grants', 'list', 'user-demo');
    expect(grants.stdout).toMatch(/^ID\s+CLIENT ID\s+SCOPE/);
    const ids = [...grants.stdout.matchAll(/^(\S+)\s+demo-client\s/gm)].map((m) => m[1]!);
    expect(ids.length).toBeGreaterThanOrEqual(2);
    expect((await admin('grants', 'revoke', ids[0]!)).code).toBe(0);
    expect((await admin('grants', 'list', 'user-demo')).stdout).not.toContain(ids[0]!);
    const unknownSession = await admin('sessions', 'revoke', 'no-such-session');
    expect(unknownSession.code).toBe(1);
    expect(unknownSession.stderr).toContain('not_found');
    const unknownGrant = await admin('grants', 'revoke', 'no-such-grant');
    expect(unknownGrant.code).toBe(1);
    expect((await admin('clients', 'delete', 'demo-client')).stderr).toContain('not_deletable');
    const revoked = await admin('user', 'revoke', 'user-demo');
    expect(revoked).toMatchObject({ code: 0 });
    expect(revoked.stdout).toMatch(/^Revoked user user-demo: \d+ session\(s\), \d+ grant\(s\)\.\n$/);
  }, 60_000);

  it('exits 1 when refused, 2 for a wrong command line, 3 when the instance is not reached', async () => {
    const wrong = await gatehouse([
      'admin',
      'health',
      '--issuer',
      server.issuer,
      '--client-id',
      'demo-admin',
      '--client-secret',
      'nope',
    ]);
    expect(wrong.code).toBe(1);
    expect(wrong.stderr).toContain('invalid_client');
    // demo-service holds no admin scope.
    const service = await gatehouse([
      'admin',
      'health',
      '--issuer',
      server.issuer,
      '--client-id',
      'demo-service',
      '--client-secret',
      'demo-service-secret',
    ]);
    expect(service.code).toBe(1);
    expect(
      (await gatehouse(['admin', 'keys', 'explode', '--issuer', server.issuer, '--token', 'x'])).code,
    ).toBe(2);
    const port = await freePort();
    const down = await gatehouse([
      'admin',
      'health',
      '--issuer',
      `http://127.0.0.1:${port}/demo`,
      '--token',
      'x',
    ]);
    expect(down.code).toBe(3);
  }, 60_000);
});
