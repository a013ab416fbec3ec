/**
 * The demo's audit trail (issue 34): `pnpm start` prints one JSON line per security event of both
 * instances on stdout, with the client address Express saw, and never a secret or token.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type DemoServer, startDemoServer } from './support/demo-server';

interface Line {
  readonly type: string;
  readonly instance: string;
  readonly outcome: string;
  readonly clientAddress?: string;
  readonly subject?: string;
  readonly clientId?: string;
}

const records = (output: string): Line[] =>
  output
    .split('\n')
    .filter((line) => line.startsWith('{"time":'))
    .map((line) => JSON.parse(line) as Line);

async function until<T>(probe: () => T | undefined): Promise<T> {
  for (let i = 0; i < 100; i++) {
    const value = probe();
    if (value !== undefined) return value;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  throw new Error('not logged');
}

describe('the demo server logs the audit trail', () => {
  let server: DemoServer;
  beforeAll(async () => {
    server = await startDemoServer();
  }, 30_000);
  afterAll(async () => {
    await server?.stop();
  });

  it('writes each security event as a JSON line with the client address, and no secret', async () => {
    const denied = await fetch(`${server.origin}/acme/oauth2/v1/token`, {
      method: 'POST',
      headers: {
        Authorization: `Basic ${btoa('demo-client:not-the-secret')}`,
        'Content-Type': 'application/x-www-form-urlencoded',
      },
      body: 'grant_type=client_credentials',
    });
    expect(denied.status).toBe(401);
    const login = await fetch(`${server.origin}/demo/auth/v1/token`, {
      method: 'POST',
      headers: { Authorization: `Basic ${btoa('demo:demo-password')}` },
    });
    expect(login.status).toBe(200);
    const { access_token } = (await login.json()) as { access_token: string };

    const issued = await until(() =>
      records(server.output()).find((r) => r.type === 'token.issued' && r.instance === server.issuer),
    );
    expect(issued).toMatchObject({ outcome: 'success', subject: 'user-demo', clientAddress: '127.0.0.1' });
    const failed = records(server.output()).find((r) => r.type === 'client.authentication_failed');
    expect(failed).toMatchObject({
      instance: `${server.origin}/acme`,
      outcome: 'failure',
      clientId: 'demo-client',
      clientAddress: '127.0.0.1',
    });
    // The trail only: the server's start-up text names the demo's seeded credentials on purpose.
    const trail = server
      .output()
      .split('\n')
      .filter((line) => line.startsWith('{"time":'))
      .join('\n');
    expect(trail).toContain('"type":"login.succeeded"');
    for (const secret of ['not-the-secret', 'demo-password', access_token, access_token.split('.')[2]!])
      expect(trail.includes(secret)).toBe(false);
  });
});
