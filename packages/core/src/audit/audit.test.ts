import {
  type AuditRecord,
  ConfigurationError,
  type EventContext,
  type GatehouseEvent,
  hashClientSecret,
  jsonLinesAuditSink,
  memoryClientStore,
} from '@gatehousejs/core';
import { setClientAddress } from '@gatehousejs/core/adapter';
import { describe, expect, it } from 'vitest';
import { authorizeUrl, callbackParams, FakeBrowser, logIn, parseForm } from '../../test/browser-flow';
import {
  basic,
  ISSUER,
  PKCE_VERIFIER,
  post,
  REDIRECT_URI,
  testClients,
  testInstance,
} from '../../test/fixtures';

const ADDRESS = '203.0.113.7';

/** An instance whose audit trail goes, as JSON lines, into `lines`; every request from {@link ADDRESS}. */
async function audited() {
  const lines: string[] = [];
  const events: { event: GatehouseEvent; context: EventContext }[] = [];
  const t = await testInstance({
    audit: jsonLinesAuditSink((line) => lines.push(line)),
    onEvent: (event, context) => events.push({ event, context }),
    dynamicRegistration: {},
    clients: memoryClientStore([
      ...(await testClients()),
      {
        id: 'service',
        type: 'confidential',
        secretHash: await hashClientSecret('service-secret'),
        grantTypes: ['client_credentials'],
        redirectUris: [],
      },
    ]),
  });
  // As an adapter does: the address is attached to the request object.
  const gatehouse = {
    fetch(request: Request) {
      setClientAddress(request, ADDRESS);
      return t.gatehouse.fetch(request);
    },
  };
  const records = () => lines.map((line) => JSON.parse(line) as AuditRecord);
  return { t, gatehouse, lines, events, records };
}

const thirdParty = (params: Record<string, string | null> = {}) =>
  authorizeUrl({ client_id: 'other-client', code_challenge: null, code_challenge_method: null, ...params });

async function json(response: Response): Promise<Record<string, string>> {
  return (await response.json()) as Record<string, string>;
}

describe('audit trail', () => {
  it('records every security event of the flows with time, instance, client, subject, address and outcome, and never a secret', async () => {
    const a = await audited();
    const secrets = new Set<string>([
      'demo-password',
      'wrong-password-123',
      'demo-secret',
      'other-secret',
      'service-secret',
      'not-the-secret',
      PKCE_VERIFIER,
    ]);
    const keep = (value: string | undefined | null) => {
      if (!value) return;
      secrets.add(value);
      // A JWT's parts too: its signature or payload alone is no less a leak.
      for (const part of value.split('.')) if (part.length >= 16) secrets.add(part);
    };
    const keepTokens = (set: Record<string, string>) => {
      keep(set.access_token);
      keep(set.refresh_token);
      keep(set.id_token);
    };
    const token = (form: Record<string, string>, secret = 'other-secret') =>
      a.gatehouse.fetch(post('/oauth2/v1/token', form, { Authorization: basic('other-client', secret) }));

    // A failed sign-in, then sign-in and consent (other-client is third-party).
    const browser = new FakeBrowser(a.gatehouse);
    const failed = await logIn(browser, thirdParty({ scope: 'read write' }), 'demo', 'wrong-password-123');
    expect(failed.status).toBe(400);
    const consentPage = await browser.follow(await logIn(browser, thirdParty({ scope: 'read write' })));
    const consentHtml = await consentPage.text();
    keep(parseForm(consentHtml).fields.csrf_token);
    for (const value of browser.cookies.values()) keep(value);
    const code = callbackParams(await browser.submitAndFollow(consentHtml, { decision: 'allow' })).get(
      'code',
    )!;
    keep(code);

    // The code for tokens; a refresh; the old refresh token again (reuse); the code again (replay).
    const issued = await json(
      await token({ grant_type: 'authorization_code', code, redirect_uri: REDIRECT_URI }),
    );
    keepTokens(issued);
    const refreshed = await json(
      await token({ grant_type: 'refresh_token', refresh_token: issued.refresh_token! }),
    );
    keepTokens(refreshed);
    expect((await token({ grant_type: 'refresh_token', refresh_token: issued.refresh_token! })).status).toBe(
      400,
    );
    // (The reuse revoked that grant, and with it its code: a new code, replayed.)
    const replayed = callbackParams(await browser.get(thirdParty({ scope: 'read' }))).get('code')!;
    keep(replayed);
    const form = { grant_type: 'authorization_code', code: replayed, redirect_uri: REDIRECT_URI };
    keepTokens(await json(await token(form)));
    expect((await token(form)).status).toBe(400);

    // A wrong client secret; client credentials; a revocation.
    expect((await token({ grant_type: 'client_credentials' }, 'not-the-secret')).status).toBe(401);
    const own = await json(
      await a.gatehouse.fetch(
        post(
          '/oauth2/v1/token',
          { grant_type: 'client_credentials' },
          { Authorization: basic('service', 'service-secret') },
        ),
      ),
    );
    keep(own.access_token);
    expect(
      (
        await a.gatehouse.fetch(
          post(
            '/oauth2/v1/revoke',
            { token: own.access_token! },
            { Authorization: basic('service', 'service-secret') },
          ),
        )
      ).status,
    ).toBe(200);

    // A registration (its secret and registration access token are secrets).
    const registered = await json(
      await a.gatehouse.fetch(
        new Request(`${ISSUER}/oauth2/v1/register`, {
          method: 'POST',
          headers: { 'Content-Type': 'application/json' },
          body: JSON.stringify({ redirect_uris: [REDIRECT_URI], client_name: 'Audited' }),
        }),
      ),
    );
    keep(registered.registration_access_token);
    keep(registered.client_secret);
    expect(registered.client_id).toBeTruthy();

    // Consent denied (a second user session asks for a wider scope), then the grant revoked.
    const denyPage = await browser.get(thirdParty({ scope: 'read admin' }));
    expect(
      callbackParams(await browser.submitAndFollow(await denyPage.text(), { decision: 'deny' })).get('error'),
    ).toBe('access_denied');
    // (The reuse revoked the first grant: a new one, without a consent page, since read is consented.)
    const again = callbackParams(await browser.get(thirdParty({ scope: 'read' }))).get('code')!;
    keep(again);
    const second = await json(
      await token({ grant_type: 'authorization_code', code: again, redirect_uri: REDIRECT_URI }),
    );
    keepTokens(second);
    const [grant] = await a.t.gatehouse.listGrants('user-1');
    expect(await a.t.gatehouse.revokeGrant('user-1', grant!.grantId)).toBe(true);

    const all = a.records();
    const types = all.map((r) => r.type);
    expect(types).toEqual([
      'interaction.started', // the login page
      'login.failed',
      'interaction.started', // the login page again
      'login.succeeded',
      'interaction.started', // the consent page
      'consent.granted',
      'token.issued',
      'token.issued',
      'refresh_token.reused',
      'token.issued',
      'code.replayed',
      'client.authentication_failed',
      'token.issued',
      'token.revoked',
      'client.registered',
      'interaction.started',
      'consent.denied',
      'token.issued',
      'grant.revoked',
      'consent.withdrawn',
    ]);
    // Below, the events of the flows themselves, one by one.
    const records = all.filter((r) => r.type !== 'interaction.started');
    const time = new Date(a.t.clock.now()).toISOString();
    for (const record of records) {
      expect(record.instance).toBe(ISSUER);
      expect(record.time).toBe(time);
    }
    // Request events carry the address; revokeGrant is an API call, with no request.
    expect(records.slice(0, -2).every((r) => r.clientAddress === ADDRESS)).toBe(true);
    expect(records.at(-1)!.clientAddress).toBeUndefined();

    expect(records[0]).toMatchObject({
      outcome: 'failure',
      reason: 'invalid_credentials',
      details: { username: 'demo', via: 'login-page' },
    });
    expect(records[1]).toMatchObject({ outcome: 'success', subject: 'user-1', subjectType: 'user' });
    expect(records[2]).toMatchObject({
      clientId: 'other-client',
      subject: 'user-1',
      details: { scope: 'read write' },
    });
    expect(records[3]).toMatchObject({
      outcome: 'success',
      clientId: 'other-client',
      subject: 'user-1',
      details: { grantType: 'authorization_code' },
    });
    expect(records[4]).toMatchObject({ details: { grantType: 'refresh_token' } });
    expect(records[5]).toMatchObject({ outcome: 'failure', reason: 'refresh_token_reused' });
    expect(records[7]).toMatchObject({
      outcome: 'failure',
      reason: 'code_replayed',
      clientId: 'other-client',
    });
    expect(records[8]).toMatchObject({
      outcome: 'failure',
      reason: 'invalid_credentials',
      clientId: 'other-client',
      details: { method: 'client_secret_basic' },
    });
    expect(records[9]).toMatchObject({
      clientId: 'service',
      subject: 'service',
      subjectType: 'client',
      details: { grantType: 'client_credentials' },
    });
    expect(records[10]).toMatchObject({ clientId: 'service', details: { kind: 'access_token' } });
    expect(records[11]).toMatchObject({ clientId: registered.client_id });
    expect(records[12]).toMatchObject({ outcome: 'failure', reason: 'access_denied', subject: 'user-1' });
    expect(records[15]).toMatchObject({ clientId: 'other-client', subject: 'user-1' });

    // onEvent gets the same context.
    expect(a.events.map((e) => e.event.type)).toEqual(types);
    expect(a.events[0]!.context).toEqual({ time: a.t.clock.now(), instance: ISSUER, clientAddress: ADDRESS });

    // No secret, token, code, cookie or password anywhere in the trail.
    expect(secrets.size).toBeGreaterThan(15);
    const trail = a.lines.join('');
    for (const secret of secrets)
      expect(trail.includes(secret), `leaked ${secret.slice(0, 12)}…`).toBe(false);
    const seen = JSON.stringify(a.events);
    for (const secret of secrets) expect(seen.includes(secret)).toBe(false);
  });

  it('writes one JSON object per line', async () => {
    const a = await audited();
    await a.gatehouse.fetch(
      post('/oauth2/v1/token', { grant_type: 'client_credentials' }, { Authorization: basic('x', 'y') }),
    );
    expect(a.lines).toHaveLength(1);
    expect(a.lines[0]!.endsWith('\n')).toBe(true);
    expect(a.lines[0]!.slice(0, -1)).not.toContain('\n');
    expect(a.records()[0]).toMatchObject({ type: 'client.authentication_failed', reason: 'unknown_client' });
  });

  it('cuts a presented client_id of 60 KB to 256 characters in the record and the event, saying so', async () => {
    const a = await audited();
    const huge = `${'c'.repeat(60_000)}-end`;
    const response = await a.gatehouse.fetch(
      post('/oauth2/v1/token', { grant_type: 'client_credentials', client_id: huge, client_secret: 'x' }),
    );
    expect(response.status).toBe(401);
    const [record] = a.records();
    expect(record).toMatchObject({ type: 'client.authentication_failed', reason: 'unknown_client' });
    expect(record!.clientId).toHaveLength(256);
    expect(record!.clientId!.startsWith('ccc')).toBe(true);
    expect(record!.clientId!.endsWith('…[cut from 60004 characters]')).toBe(true);
    expect(a.lines[0]!.length).toBeLessThan(1024);
    // What `onEvent` gets is as cut: the host's own log of it stays bounded too.
    const event = a.events.find((e) => e.event.type === 'client.authentication_failed')!.event;
    expect((event as { clientId: string }).clientId).toBe(record!.clientId);
  });

  it('takes the client address from rateLimit.clientAddress, and several sinks', async () => {
    const first: AuditRecord[] = [];
    const second: AuditRecord[] = [];
    const t = await testInstance({
      rateLimit: { clientAddress: () => '198.51.100.1' },
      audit: [{ write: (r) => void first.push(r) }, { write: (r) => void second.push(r) }],
    });
    await t.gatehouse.fetch(
      post('/oauth2/v1/token', { grant_type: 'client_credentials' }, { Authorization: basic('x', 'y') }),
    );
    expect(first).toHaveLength(1);
    expect(second).toEqual(first);
    expect(first[0]!.clientAddress).toBe('198.51.100.1');
  });

  it('logs a sink that throws or rejects and still answers the request', async () => {
    const errors: unknown[][] = [];
    const t = await testInstance({
      logger: { warn() {}, error: (...args) => void errors.push(args) },
      audit: [
        {
          write() {
            throw new Error('disk full');
          },
        },
        { write: () => Promise.reject(new Error('collector down')) },
      ],
    });
    const response = await t.gatehouse.fetch(
      post(
        '/oauth2/v1/token',
        { grant_type: 'client_credentials' },
        { Authorization: basic('demo-client', 'wrong') },
      ),
    );
    expect(response.status).toBe(401);
    await new Promise((resolve) => setTimeout(resolve, 0));
    expect(errors.map((e) => (e[1] as Error).message).sort()).toEqual(['collector down', 'disk full']);
  });

  it('refuses an audit option that is no sink, naming it', async () => {
    await expect(testInstance({ audit: {} as never })).rejects.toThrow(ConfigurationError);
    await expect(testInstance({ audit: [{ write() {} }, 'stdout'] as never })).rejects.toThrow(
      /^audit\[1\]: /,
    );
  });
});

describe('audit record time', () => {
  it('is the event time as toISOString writes it, from one millisecond to the next and across seconds', async () => {
    // Within a second and across one, with a fraction of a millisecond, before and after 1970.
    const start = Date.UTC(2026, 0, 1);
    const times = [
      start,
      start + 7,
      start + 63.9,
      start + 999,
      start + 1000,
      start + 1540,
      -1,
      -0.5,
      0,
      -1995,
    ];
    let now = start;
    const records: AuditRecord[] = [];
    const t = await testInstance({ now: () => now, audit: { write: (record) => void records.push(record) } });
    for (const time of times) {
      now = time;
      // A refused client authentication: one event, at `now`.
      await t.gatehouse.fetch(
        post(
          '/oauth2/v1/token',
          { grant_type: 'client_credentials' },
          { Authorization: basic('nobody', 'x') },
        ),
      );
    }
    expect(records.map((record) => record.time)).toEqual(times.map((time) => new Date(time).toISOString()));
  });
});
