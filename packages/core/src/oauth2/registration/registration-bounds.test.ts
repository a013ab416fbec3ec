/**
 * What an anonymous RFC 7591 registration can make the server store (issue 27 items 1 and 2): the
 * instance's registrations are capped (`maxClients`, on every engine: the engines' own cases are
 * in `testing/registry-cases.ts`), a full registry is a 503 with `Retry-After` logged once per
 * interval (never a 500), and the metadata kept per registration is capped in size and count.
 * A full registry makes room from the heaviest client network rather than refusing a lighter one
 * (issue 41: no anonymous caller can deny registration to anyone else).
 */

import type { GatehouseEvent } from '@gatehousejs/core';
import { type ClientRegistry, memoryClientRegistry, StoreFullError } from '@gatehousejs/core/engine';
import { describe, expect, it } from 'vitest';
import { authorizeUrl, FakeBrowser } from '../../../test/browser-flow';
import { ISSUER, REDIRECT_URI, type TestOptions, testInstance } from '../../../test/fixtures';

type Instance = Awaited<ReturnType<typeof testInstance>>;

function register(t: Instance, body: unknown, address?: string): Promise<Response> {
  return t.gatehouse.fetch(
    new Request(`${ISSUER}/oauth2/v1/register`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', ...(address ? { 'x-test-address': address } : {}) },
      body: JSON.stringify(body),
    }),
  );
}

const app = (overrides: Record<string, unknown> = {}) => ({
  client_name: 'Registered App',
  redirect_uris: [REDIRECT_URI],
  ...overrides,
});

/** An instance logging into `errors`, with registration open and generous per-address budgets. */
function instance(extra: TestOptions = {}, errors: unknown[][] = []) {
  return testInstance({
    dynamicRegistration: { maxPerAddress: 1000, maxClients: 2 },
    logger: { warn() {}, error: (...args: unknown[]) => errors.push(args) },
    ...extra,
  });
}

async function expectFull(response: Response) {
  expect(response.status).toBe(503);
  expect(response.headers.get('retry-after')).toBe('60');
  expect((await response.json()).error).toBe('temporarily_unavailable');
}

describe('registration bounds', () => {
  it('answer a new registration beyond maxClients 503 with Retry-After, logged once per interval', async () => {
    const errors: unknown[][] = [];
    const t = await instance({}, errors);
    expect((await register(t, app())).status).toBe(201);
    expect((await register(t, app())).status).toBe(201);
    for (let i = 0; i < 3; i++) await expectFull(await register(t, app()));
    expect(errors).toHaveLength(1);
    expect(String(errors[0]![0])).toMatch(/client registry store is full/);
  });

  it('answer the same from an engine outside the process: the storage guard lets a full store through', async () => {
    // A registry that is not the trusted memory one is guarded: its failures become 503s "try
    // again shortly"; a full one must keep its own answer (and its log interval).
    const inner = memoryClientRegistry();
    const remote: ClientRegistry = {
      saveClient: (record, limits) => inner.saveClient(record, limits),
      findClient: (id, now) => inner.findClient(id, now),
      touchClient: (id, expiresAt, now) => inner.touchClient(id, expiresAt, now),
      deleteClient: (id) => inner.deleteClient(id),
    };
    const t = await instance({ storage: { clients: remote } });
    for (let i = 0; i < 2; i++) expect((await register(t, app())).status).toBe(201);
    await expectFull(await register(t, app()));
  });

  it('answer a full store 503, never 500, whatever store throws it', async () => {
    const full: ClientRegistry = {
      saveClient: async () => {
        throw new StoreFullError('test');
      },
      findClient: async () => null,
      touchClient: async () => false,
      deleteClient: async () => {},
    };
    const t = await instance({ storage: { clients: full } });
    await expectFull(await register(t, app()));
  });

  it('let a developer from a fresh network register into a registry other networks filled: the heaviest network makes room, audited', async () => {
    const events: GatehouseEvent[] = [];
    const t = await testInstance({
      dynamicRegistration: { maxPerAddress: 2, maxClients: 5 },
      rateLimit: { clientAddress: (r) => r.headers.get('x-test-address') ?? undefined },
      onEvent: (event) => events.push(event),
      logger: { warn() {}, error() {} },
    });
    const clientIdOf = async (response: Response) => {
      expect(response.status).toBe(201);
      return ((await response.json()) as { client_id: string }).client_id;
    };
    // Two networks fill the registry: three registrations from 203.0.113.0/24, two from 198.51.100.0/24.
    const flood = [];
    for (const address of ['203.0.113.1', '203.0.113.1', '203.0.113.2'])
      flood.push(await clientIdOf(await register(t, app(), address)));
    for (const address of ['198.51.100.1', '198.51.100.1'])
      await clientIdOf(await register(t, app(), address));
    // The flood's first client is in use (an authorization request names it).
    const inUse = await new FakeBrowser(t.gatehouse).get(authorizeUrl({ client_id: flood[0]! }));
    expect(inUse.status).toBe(200);

    const developer = await clientIdOf(await register(t, app(), '192.0.2.10'));
    // The heaviest network's oldest never-used registration was deleted to make room.
    const evicted = events.filter((event) => event.type === 'client.evicted');
    expect(evicted).toEqual([{ type: 'client.evicted', clientId: flood[1] }]);
    const gone = await new FakeBrowser(t.gatehouse).get(authorizeUrl({ client_id: flood[1]! }));
    expect(gone.status).toBe(400);
    for (const kept of [flood[0]!, flood[2]!, developer])
      expect((await new FakeBrowser(t.gatehouse).get(authorizeUrl({ client_id: kept }))).status).toBe(200);
    // The networks now hold their fair shares (2, 2, 1): the flooding network is refused, no one else evicted.
    await expectFull(await register(t, app(), '203.0.113.3'));
    expect(events.filter((event) => event.type === 'client.evicted')).toHaveLength(1);
  });

  it('cap the metadata kept per registration: at most 10 redirect URIs and 8,192 bytes', async () => {
    const t = await instance();
    const uris = (count: number, length: number) =>
      Array.from({ length: count }, (_, i) => `https://app.example/${i}/${'x'.repeat(length)}`);
    const tooMany = await register(t, app({ redirect_uris: uris(11, 10) }));
    expect(tooMany.status).toBe(400);
    expect((await tooMany.json()).error).toBe('invalid_redirect_uri');
    const tooLarge = await register(t, app({ redirect_uris: uris(10, 1000) }));
    expect(tooLarge.status).toBe(400);
    const body = await tooLarge.json();
    expect(body.error).toBe('invalid_client_metadata');
    expect(body.error_description).toMatch(/8192 bytes/);
    expect((await register(t, app({ redirect_uris: uris(10, 500) }))).status).toBe(201);
  });
});
