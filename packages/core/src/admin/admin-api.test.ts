import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import {
  ConfigurationError,
  createGatehouse,
  type Gatehouse,
  type GatehouseEvent,
  type GatehouseOptions,
  generateKeys,
  hashClientSecret,
  memoryClientStore,
  memoryStorage,
  memoryUserStore,
} from '@gatehousejs/core';
import { sendWebResponse, toWebRequest } from '@gatehousejs/core/node';
import { Validator } from '@seriousme/openapi-schema-validator';
import { afterAll, describe, expect, it } from 'vitest';
import { authorizeUrl, callbackParams, FakeBrowser, signIn } from '../../test/browser-flow';
import { ath, dpopKey, dpopProof } from '../../test/dpop';
import {
  basic,
  ISSUER,
  PKCE_VERIFIER,
  post,
  REDIRECT_URI,
  testClients,
  testClock,
  testHasher,
} from '../../test/fixtures';

const KEK = 'q83vEjRWeJC6_u7_ABEiMw'; // 16 bytes, base64url
const DAY = 86_400;
const SCOPE = 'gatehouse:admin';
/** The public URL of the admin API (the issuer's); requests go to the test server's port. */
const PUBLIC_BASE = `${ISSUER}/admin/v1`;

const servers: Server[] = [];
afterAll(async () => {
  for (const server of servers.splice(0)) {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  }
});

/** Serves `gatehouse` on a free loopback port over node:http; the base URL of its admin API. */
async function serve(gatehouse: Gatehouse): Promise<string> {
  const server = createServer(async (req, res) => {
    await sendWebResponse(res, await gatehouse.fetch(toWebRequest(req)));
  });
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}/demo/admin/v1`;
}

/**
 * An instance with the admin API, stored rotated keys and dynamic registration, served over HTTP:
 * `ops` (client credentials, the admin scope) and the user `user-admin` are allowed; `reader`
 * (client credentials, `read`) and the `demo` user (`user-1`) are not.
 */
async function adminInstance(overrides: Partial<GatehouseOptions> = {}) {
  const clock = testClock();
  const storage = memoryStorage();
  const events: GatehouseEvent[] = [];
  const errors: unknown[][] = [];
  const users = memoryUserStore(
    [
      { id: 'user-1', username: 'demo', passwordHash: await testHasher.hash('demo-password') },
      {
        id: 'user-admin',
        username: 'admin',
        passwordHash: await testHasher.hash('admin-password'),
        claims: { name: 'Admin' },
      },
    ],
    { hasher: testHasher },
  );
  const service = async (id: string, scopes: string[]) => ({
    id,
    type: 'confidential' as const,
    secretHash: await hashClientSecret(`${id}-secret`),
    tokenEndpointAuthMethod: 'client_secret_basic' as const,
    grantTypes: ['client_credentials' as const],
    scopes,
    redirectUris: [],
  });
  const gatehouse = createGatehouse({
    issuer: ISSUER,
    keys: [],
    keyRotation: { keyEncryptionKey: KEK, rotateEvery: 10 * DAY, leadTime: DAY, refreshInterval: 30 },
    clients: memoryClientStore([
      ...(await testClients()),
      await service('ops', [SCOPE]),
      await service('reader', ['read']),
    ]),
    users,
    now: clock.now,
    storage,
    dynamicRegistration: {},
    admin: {
      authorize: ({ subject }) =>
        subject.kind === 'user' ? subject.userId === 'user-admin' : subject.clientId === 'ops',
    },
    onEvent: (event) => events.push(event),
    logger: { warn() {}, error: (...args: unknown[]) => errors.push(args) },
    ...overrides,
  });
  await gatehouse.ready();
  const base = await serve(gatehouse);
  /** A request to the admin API over HTTP. */
  const call = (
    method: string,
    path: string,
    token?: string,
    init: { body?: unknown; headers?: Record<string, string> } = {},
  ) =>
    fetch(base + path, {
      method,
      headers: {
        ...(token === undefined ? {} : { Authorization: `Bearer ${token}` }),
        ...(init.body === undefined ? {} : { 'Content-Type': 'application/json' }),
        ...init.headers,
      },
      ...(init.body === undefined ? {} : { body: JSON.stringify(init.body) }),
    });
  return { gatehouse, clock, storage, events, errors, base, call };
}

type Instance = Awaited<ReturnType<typeof adminInstance>>;

/** A client credentials token of `clientId` (secret `{id}-secret`) for `scope`. */
async function clientToken(gatehouse: Gatehouse, clientId: string, scope: string, dpop?: string) {
  const response = await gatehouse.fetch(
    post(
      '/oauth2/v1/token',
      { grant_type: 'client_credentials', scope },
      { Authorization: basic(clientId, `${clientId}-secret`), ...(dpop === undefined ? {} : { DPoP: dpop }) },
    ),
  );
  expect(response.status).toBe(200);
  return ((await response.json()) as { access_token: string }).access_token;
}

/** A user's tokens for demo-client through the login page (a session, then a grant from it). */
async function userTokens(t: Instance, username: string, password: string, scope: string) {
  const browser = new FakeBrowser(t.gatehouse);
  const code = callbackParams(await signIn(browser, authorizeUrl({ scope }), username, password)).get(
    'code',
  )!;
  const response = await t.gatehouse.fetch(
    post(
      '/oauth2/v1/token',
      { grant_type: 'authorization_code', code, redirect_uri: REDIRECT_URI, code_verifier: PKCE_VERIFIER },
      { Authorization: basic('demo-client', 'demo-secret') },
    ),
  );
  expect(response.status).toBe(200);
  return (await response.json()) as { access_token: string; refresh_token: string };
}

/** The refresh token grant's status for demo-client. */
async function refreshStatus(gatehouse: Gatehouse, refreshToken: string): Promise<number> {
  const response = await gatehouse.fetch(
    post(
      '/oauth2/v1/token',
      { grant_type: 'refresh_token', refresh_token: refreshToken },
      { Authorization: basic('demo-client', 'demo-secret') },
    ),
  );
  return response.status;
}

interface OpenApiDocument {
  openapi: string;
  paths: Record<string, Record<string, { operationId: string; responses: Record<string, unknown> }>>;
  components: { schemas: Record<string, { required?: string[] }> };
}

async function openApi(t: Instance): Promise<OpenApiDocument> {
  const response = await fetch(`${t.base}/openapi.json`);
  expect(response.status).toBe(200);
  return (await response.json()) as OpenApiDocument;
}

/** Every operation of the document: its method, path template and id. */
function operationsOf(document: OpenApiDocument) {
  return Object.entries(document.paths).flatMap(([path, item]) =>
    Object.entries(item).map(([method, operation]) => ({
      method: method.toUpperCase(),
      path,
      operationId: operation.operationId,
      responses: operation.responses,
    })),
  );
}

/** The property names a 200 answer's schema requires (following one `$ref`). */
function requiredFields(document: OpenApiDocument, responses: Record<string, unknown>): string[] {
  const schema = (
    responses['200'] as { content?: { 'application/json': { schema: Record<string, unknown> } } }
  )?.content?.['application/json'].schema;
  if (!schema) return [];
  const ref = schema.$ref as string | undefined;
  const resolved = ref
    ? document.components.schemas[ref.split('/').pop()!]
    : (schema as { required?: string[] });
  return resolved?.required ?? [];
}

describe('the admin API document', () => {
  it('is an OpenAPI 3.1 document a validator accepts, naming every operation of the contract', async () => {
    const t = await adminInstance();
    const document = await openApi(t);
    const validator = new Validator();
    const result = await validator.validate(document as unknown as Record<string, unknown>);
    expect(result.errors ?? []).toEqual([]);
    expect(result.valid).toBe(true);
    expect(validator.version).toBe('3.1');
    expect(
      operationsOf(document)
        .map((operation) => operation.operationId)
        .sort(),
    ).toEqual(
      [
        'deleteClient',
        'findUsers',
        'health',
        'listClients',
        'listKeys',
        'listUserGrants',
        'listUserSessions',
        'metrics',
        'readAudit',
        'revokeGrant',
        'revokeKey',
        'revokeSession',
        'revokeUser',
        'rotateKeys',
      ].sort(),
    );
  });
});

describe('every operation of the document, over HTTP', () => {
  it('answers each one to an allowed caller as the document says, and refuses each one without a token', async () => {
    const t = await adminInstance();
    const token = await clientToken(t.gatehouse, 'ops', SCOPE);
    const demo = await userTokens(t, 'demo', 'demo-password', 'read offline_access');
    const registered = (await (
      await t.gatehouse.fetch(
        new Request(`${ISSUER}/oauth2/v1/register`, {
          method: 'POST',
          headers: { 'Content-Type': 'application/json' },
          body: JSON.stringify({ redirect_uris: ['https://app.example/cb'], client_name: 'Self' }),
        }),
      )
    ).json()) as { client_id: string };
    const idOf = async (path: string, list: 'sessions' | 'grants') =>
      ((await (await t.call('GET', path, token)).json()) as Record<string, { id: string }[]>)[list]![0]!.id;
    const kidOf = async (state: string) =>
      (
        (await (await t.call('GET', '/keys', token)).json()) as { keys: { kid: string; state: string }[] }
      ).keys.find((key) => key.state === state)!.kid;

    /** How to call each operation: its path parameters, query, body, expected status. */
    const recipes: Record<
      string,
      () => Promise<{ params?: Record<string, string>; query?: string; body?: unknown; status: number }>
    > = {
      health: async () => ({ status: 200 }),
      metrics: async () => ({ status: 200 }),
      listKeys: async () => ({ status: 200 }),
      rotateKeys: async () => ({ body: { now: false }, status: 200 }),
      revokeKey: async () => ({ params: { kid: await kidOf('next') }, status: 200 }),
      listClients: async () => ({ query: 'registered=self', status: 200 }),
      deleteClient: async () => ({ params: { clientId: registered.client_id }, status: 204 }),
      findUsers: async () => ({ query: 'q=user-1', status: 200 }),
      listUserSessions: async () => ({ params: { userId: 'user-1' }, status: 200 }),
      revokeSession: async () => ({
        params: { sessionId: await idOf('/users/user-1/sessions', 'sessions') },
        status: 204,
      }),
      listUserGrants: async () => ({ params: { userId: 'user-1' }, status: 200 }),
      revokeGrant: async () => ({
        params: { grantId: await idOf('/users/user-1/grants', 'grants') },
        status: 204,
      }),
      revokeUser: async () => ({ params: { userId: 'user-1' }, status: 200 }),
      readAudit: async () => ({ query: 'limit=10', status: 200 }),
    };

    const document = await openApi(t);
    const operations = operationsOf(document);
    // A new operation without a recipe fails here: every operation of the document is exercised.
    expect(
      operations.filter((operation) => !recipes[operation.operationId]).map((o) => o.operationId),
    ).toEqual([]);
    // Reads before the changes that remove what they read (the document's order: reads come first per resource).
    const order = (id: string) => (['revokeUser', 'revokeSession', 'revokeGrant'].includes(id) ? 1 : 0);
    for (const operation of [...operations].sort((a, b) => order(a.operationId) - order(b.operationId))) {
      const recipe = await recipes[operation.operationId]!();
      const path = operation.path.replace(/\{([^}]+)\}/g, (_, name: string) =>
        encodeURIComponent(recipe.params![name]!),
      );
      const url = path + (recipe.query === undefined ? '' : `?${recipe.query}`);
      const unauthenticated = await t.call(operation.method, url);
      expect(unauthenticated.status, `${operation.operationId} without a token`).toBe(401);
      expect(unauthenticated.headers.get('www-authenticate')).toMatch(/^Bearer realm=/);
      const response = await t.call(operation.method, url, token, { body: recipe.body });
      expect(response.status, `${operation.operationId}: ${await response.clone().text()}`).toBe(
        recipe.status,
      );
      expect(Object.keys(operation.responses)).toContain(String(recipe.status));
      expect(response.headers.get('cache-control')).toBe('no-store');
      if (recipe.status === 200) {
        const body = (await response.json()) as Record<string, unknown>;
        for (const field of requiredFields(document, operation.responses))
          expect(body, `${operation.operationId} answers ${field}`).toHaveProperty(field);
      }
    }
    // What the changes did, seen from outside: the demo user's refresh token is refused.
    expect(await refreshStatus(t.gatehouse, demo.refresh_token)).toBe(400);
  });
});

describe('who may call the admin API', () => {
  it('accepts an allowed client and an allowed user, and refuses a token without the scope with 403 insufficient_scope', async () => {
    const t = await adminInstance();
    expect((await t.call('GET', '/keys', await clientToken(t.gatehouse, 'ops', SCOPE))).status).toBe(200);
    const admin = await userTokens(t, 'admin', 'admin-password', `read ${SCOPE}`);
    expect((await t.call('GET', '/keys', admin.access_token)).status).toBe(200);

    const refused = await t.call('GET', '/keys', await clientToken(t.gatehouse, 'reader', 'read'));
    expect(refused.status).toBe(403);
    expect(((await refused.json()) as { error: string }).error).toBe('insufficient_scope');
    expect(refused.headers.get('www-authenticate')).toContain(`scope="${SCOPE}"`);
  });

  it("refuses a caller the host's hook does not allow (the demo user, even with the scope), and a hook that throws", async () => {
    const t = await adminInstance();
    const demo = await userTokens(t, 'demo', 'demo-password', `read ${SCOPE}`);
    const refused = await t.call('POST', '/keys/rotate', demo.access_token);
    expect(refused.status).toBe(403);
    expect(((await refused.json()) as { error: string }).error).toBe('insufficient_scope');
    expect(t.events.some((event) => event.type === 'admin.action')).toBe(false);

    const throwing = await adminInstance({
      admin: {
        authorize: () => {
          throw new Error('directory down');
        },
      },
    });
    const token = await clientToken(throwing.gatehouse, 'ops', SCOPE);
    expect((await throwing.call('GET', '/health', token)).status).toBe(403);
    expect(throwing.errors.some(([message]) => String(message).includes('admin.authorize threw'))).toBe(true);
  });

  it("refuses another instance's token with 401 invalid_token, even one carrying the scope", async () => {
    const t = await adminInstance();
    const other = createGatehouse({
      issuer: 'http://localhost:3000/acme',
      keys: [await generateKeys()],
      clients: memoryClientStore([
        {
          id: 'ops',
          type: 'confidential',
          secretHash: await hashClientSecret('ops-secret'),
          grantTypes: ['client_credentials'],
          redirectUris: [],
        },
      ]),
      users: memoryUserStore([], { hasher: testHasher }),
      logger: { warn() {}, error() {} },
    });
    const response = await other.fetch(
      new Request('http://localhost:3000/acme/oauth2/v1/token', {
        method: 'POST',
        headers: {
          'Content-Type': 'application/x-www-form-urlencoded',
          Authorization: basic('ops', 'ops-secret'),
        },
        body: new URLSearchParams({ grant_type: 'client_credentials', scope: SCOPE }),
      }),
    );
    const foreign = ((await response.json()) as { access_token: string }).access_token;
    const refused = await t.call('GET', '/keys', foreign);
    expect(refused.status).toBe(401);
    expect(((await refused.json()) as { error: string }).error).toBe('invalid_token');
    expect(refused.headers.get('www-authenticate')).toContain('error="invalid_token"');
  });

  it('refuses cross-site browser requests with 403, and takes same-origin ones', async () => {
    const t = await adminInstance();
    const token = await clientToken(t.gatehouse, 'ops', SCOPE);
    const crossSite: Record<string, string>[] = [
      { Origin: 'https://evil.example' },
      { 'Sec-Fetch-Site': 'cross-site' },
      { 'Sec-Fetch-Site': 'same-site', Origin: 'http://app.localhost:3000' },
    ];
    for (const headers of crossSite) {
      const response = await t.call('POST', '/keys/rotate', token, { headers });
      expect(response.status, JSON.stringify(headers)).toBe(403);
      expect(((await response.json()) as { error: string }).error).toBe('forbidden');
      expect(response.headers.get('access-control-allow-origin')).toBeNull();
    }
    const sameOrigin = await t.call('GET', '/keys', token, {
      headers: { Origin: new URL(ISSUER).origin, 'Sec-Fetch-Site': 'same-origin' },
    });
    expect(sameOrigin.status).toBe(200);
    expect(t.events.filter((event) => event.type === 'admin.action')).toEqual([]);
  });

  it('accepts a DPoP-bound token with its proof, and refuses it presented as a bearer token', async () => {
    const t = await adminInstance();
    const key = await dpopKey();
    const token = await clientToken(
      t.gatehouse,
      'ops',
      SCOPE,
      await dpopProof(key, 'POST', `${ISSUER}/oauth2/v1/token`, t.clock.now()),
    );
    const proof = await dpopProof(key, 'GET', `${PUBLIC_BASE}/keys`, t.clock.now(), {
      ath: await ath(token),
    });
    const accepted = await t.call('GET', '/keys', undefined, {
      headers: { Authorization: `DPoP ${token}`, DPoP: proof },
    });
    expect(accepted.status).toBe(200);
    expect((await t.call('GET', '/keys', token)).status).toBe(401);
  });

  it('is off unless the admin option is given, and refuses options without an authorize hook', async () => {
    const t = await adminInstance({ admin: undefined });
    expect((await t.call('GET', '/openapi.json')).status).toBe(404);
    expect((await t.call('GET', '/keys', await clientToken(t.gatehouse, 'ops', SCOPE))).status).toBe(404);
    const base = {
      issuer: ISSUER,
      keys: [await generateKeys()],
      clients: memoryClientStore([]),
      users: memoryUserStore([], { hasher: testHasher }),
    };
    const create = (admin: unknown) => () => createGatehouse({ ...base, admin } as GatehouseOptions);
    expect(create({})).toThrow(ConfigurationError);
    expect(create({})).toThrow(/admin\.authorize/);
    expect(create({ authorize: () => true, scope: 'two words' })).toThrow(/admin\.scope/);
  });
});

describe('admin actions', () => {
  it('are audit records naming their actor, which readAudit finds newest first', async () => {
    const t = await adminInstance();
    const token = await clientToken(t.gatehouse, 'ops', SCOPE);
    expect((await t.call('POST', '/keys/rotate', token)).status).toBe(200);
    const action = t.events.find((event) => event.type === 'admin.action');
    expect(action).toEqual({
      type: 'admin.action',
      operation: 'rotateKeys',
      target: 'scheduled',
      actor: { clientId: 'ops', subject: 'ops', subjectType: 'client' },
    });
    const audit = (await (await t.call('GET', '/audit?type=admin.action', token)).json()) as {
      records: { type: string; actor: unknown; time: string }[];
    };
    expect(audit.records).toHaveLength(1);
    expect(audit.records[0]!.actor).toEqual({ clientId: 'ops', subject: 'ops', subjectType: 'client' });
    const all = (await (await t.call('GET', '/audit?limit=200', token)).json()) as {
      records: { time: string }[];
    };
    const times = all.records.map((record) => Date.parse(record.time));
    expect(times).toEqual([...times].sort((a, b) => b - a));
    expect((await t.call('GET', '/audit?limit=201', token)).status).toBe(400);
    expect((await t.call('GET', '/users', token)).status).toBe(400);
  });

  it('keeps the newest 1,000 audit records of the process: older ones leave the ring', async () => {
    const t = await adminInstance();
    const token = await clientToken(t.gatehouse, 'ops', SCOPE);
    const refused = (clientId: string) =>
      t.gatehouse.fetch(
        post(
          '/oauth2/v1/token',
          { grant_type: 'client_credentials' },
          { Authorization: basic(clientId, 'wrong') },
        ),
      );
    await refused('first');
    const found = async (clientId: string) =>
      ((await (await t.call('GET', `/audit?clientId=${clientId}`, token)).json()) as { records: unknown[] })
        .records;
    expect(await found('first')).toHaveLength(1);
    for (let i = 0; i < 1000; i++) await refused('later');
    expect(await found('first')).toEqual([]);
    expect(await found('later')).toHaveLength(50);
  });

  it('revokeGrant ends the grant: its refresh token is then refused over HTTP', async () => {
    const t = await adminInstance();
    const token = await clientToken(t.gatehouse, 'ops', SCOPE);
    const demo = await userTokens(t, 'demo', 'demo-password', 'read offline_access');
    const grants = (await (await t.call('GET', '/users/user-1/grants', token)).json()) as {
      grants: { id: string; clientId: string; scope: string }[];
    };
    expect(grants.grants).toHaveLength(1);
    expect(grants.grants[0]).toMatchObject({ clientId: 'demo-client', scope: 'read offline_access' });
    const sessions = (await (await t.call('GET', '/users/user-1/sessions', token)).json()) as {
      sessions: { clients: string[] }[];
    };
    expect(sessions.sessions[0]!.clients).toEqual(['demo-client']);
    expect((await t.call('DELETE', `/grants/${grants.grants[0]!.id}`, token)).status).toBe(204);
    expect(await refreshStatus(t.gatehouse, demo.refresh_token)).toBe(400);
    expect((await t.call('DELETE', `/grants/${grants.grants[0]!.id}`, token)).status).toBe(404);
    expect((await t.call('DELETE', '/grants/not-an-id', token)).status).toBe(404);
    expect(t.events.find((event) => event.type === 'admin.action')).toMatchObject({
      operation: 'revokeGrant',
      userId: 'user-1',
    });
  });

  it('deletes self-registered clients only: a host client is 409 not_deletable, an unknown one 404', async () => {
    const t = await adminInstance();
    const token = await clientToken(t.gatehouse, 'ops', SCOPE);
    const listed = (await (await t.call('GET', '/clients', token)).json()) as {
      clients: { clientId: string; selfRegistered: boolean; origin: string }[];
    };
    expect(listed.clients.find((client) => client.clientId === 'ops')).toMatchObject({
      selfRegistered: false,
      origin: 'host',
    });
    const refused = await t.call('DELETE', '/clients/ops', token);
    expect(refused.status).toBe(409);
    expect(((await refused.json()) as { error: string }).error).toBe('not_deletable');
    expect((await t.call('DELETE', '/clients/nobody', token)).status).toBe(404);
  });
});

describe('keys, explained', () => {
  it('says why the signing key signs, what rotating now costs, and what revoking the signing key brought back', async () => {
    const t = await adminInstance();
    const token = await clientToken(t.gatehouse, 'ops', SCOPE);
    type Keys = {
      keys: { kid: string; alg: string; state: string; since: string | null; until: string | null }[];
      signing: { kid: string; why: string };
      cost?: string;
    };
    const keys = async () => (await (await t.call('GET', '/keys', token)).json()) as Keys;
    // The first key signed at once; the next one is published by the first read of the keys.
    expect((await keys()).signing.why).toContain('made to sign at once');
    t.clock.advance(3);
    const first = await keys();
    expect(first.signing.why).toContain('has been published for 3 s of its 1 day lead time');
    const initial = first.signing.kid;

    const rotated = (await (
      await t.call('POST', '/keys/rotate', token, { body: { now: true } })
    ).json()) as Keys;
    expect(rotated.cost).toContain('relying parties that cached the key set');
    expect(rotated.signing.kid).not.toBe(initial);
    expect(rotated.keys.find((key) => key.kid === initial)?.state).toBe('retired');

    t.clock.advance(5);
    const revoked = (await (
      await t.call('POST', `/keys/${rotated.signing.kid}/revoke`, token)
    ).json()) as Keys;
    expect(revoked.signing.kid).toBe(initial);
    expect(revoked.signing.why).toContain('brought back the previous one');
    expect(revoked.keys.filter((key) => key.kid === rotated.signing.kid).map((key) => key.state)).toEqual([
      'revoked',
    ]);
    expect((await t.call('POST', '/keys/unknown-kid/revoke', token)).status).toBe(404);
    // The scheduled rotation costs nothing: the next key waits for its lead time.
    const scheduled = (await (await t.call('POST', '/keys/rotate', token)).json()) as Keys;
    expect(scheduled.cost).toMatch(/^No cost/);
  });

  it('puts each token issued in the minute it was issued in, across minute boundaries', async () => {
    const t = await adminInstance();
    t.clock.advance(59.9); // 00:00:59.900
    const token = await clientToken(t.gatehouse, 'ops', SCOPE);
    await clientToken(t.gatehouse, 'reader', 'read');
    t.clock.advance(0.2); // 00:01:00.100
    await clientToken(t.gatehouse, 'reader', 'read');
    t.clock.advance(30); // 00:01:30.100
    await clientToken(t.gatehouse, 'reader', 'read');
    await clientToken(t.gatehouse, 'reader', 'read');
    t.clock.advance(60); // 00:02:30.100
    await clientToken(t.gatehouse, 'reader', 'read');
    const metrics = (await (await t.call('GET', '/metrics', token)).json()) as {
      until: string;
      series: { tokensIssued: Record<string, number[]> };
    };
    expect(metrics.until).toBe('2026-01-01T00:03:00.000Z');
    expect(metrics.series.tokensIssued.client_credentials!.slice(-3)).toEqual([2, 3, 1]);
  });

  it('counts tokens issued per grant type and refusals by reason, per minute of the last hour', async () => {
    const t = await adminInstance();
    const token = await clientToken(t.gatehouse, 'ops', SCOPE);
    await clientToken(t.gatehouse, 'reader', 'read');
    await t.gatehouse.fetch(
      post(
        '/oauth2/v1/token',
        { grant_type: 'client_credentials' },
        { Authorization: basic('reader', 'wrong') },
      ),
    );
    const metrics = (await (await t.call('GET', '/metrics', token)).json()) as {
      bucketSeconds: number;
      series: { tokensIssued: Record<string, number[]>; refusals: Record<string, number[]> };
    };
    expect(metrics.bucketSeconds).toBe(60);
    expect(metrics.series.tokensIssued.client_credentials).toHaveLength(60);
    expect(metrics.series.tokensIssued.client_credentials!.at(-1)).toBe(2);
    expect(metrics.series.refusals.invalid_credentials!.at(-1)).toBe(1);
    const health = (await (await t.call('GET', '/health', token)).json()) as {
      status: string;
      engine: { reachable: boolean };
      keys: { signing: string };
    };
    expect(health).toMatchObject({ status: 'ok', engine: { reachable: true } });
  });
});
