/**
 * The bounds of client ID metadata documents (issue 27 items 1, 3 and 7), over HTTP against a
 * Gatehouse instance whose documents are served by local servers on 127.0.0.1, fetched with the
 * default transport (on Node.js: the address-checking one). Every answer is a 4xx or a 503 with
 * `Retry-After`, never a 500; nothing a document says reaches the storage engine.
 */
import { lookup } from 'node:dns/promises';
import { createServer as createTcpServer } from 'node:net';
import { hostname } from 'node:os';
import type { ClientMetadataDocumentOptions } from '@gatehousejs/core';
import { memoryClientRegistry } from '@gatehousejs/core/engine';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { authorizeUrl } from '../../../test/browser-flow';
import { DocumentServer } from '../../../test/document-server';
import { ISSUER, REDIRECT_URI, testInstance } from '../../../test/fixtures';

const origin = new DocumentServer();
const otherOrigin = new DocumentServer();
beforeAll(() => Promise.all([origin.start(), otherOrigin.start()]));
afterAll(() => Promise.all([origin.stop(), otherOrigin.stop()]));

const document =
  (overrides: Record<string, unknown> = {}) =>
  (url: string) => ({
    client_id: url,
    client_name: 'Bounded App',
    redirect_uris: [REDIRECT_URI],
    token_endpoint_auth_method: 'none',
    ...overrides,
  });

const ADDRESS = 'x-test-address';

/** An instance whose client address is the `x-test-address` header (one address per caller). */
function instance(options: ClientMetadataDocumentOptions = {}, registry = memoryClientRegistry()) {
  return testInstance({
    clientMetadataDocuments: { allowLoopback: true, timeoutMs: 300, ...options },
    rateLimit: { clientAddress: (request) => request.headers.get(ADDRESS) ?? undefined },
    storage: { clients: registry },
  });
}

type Instance = Awaited<ReturnType<typeof instance>>;

/** The authorize page for `clientId`, asked from `address`. */
function authorize(t: Instance, clientId: string, address = '198.51.100.7'): Promise<Response> {
  return t.gatehouse.fetch(
    new Request(authorizeUrl({ client_id: clientId }), { headers: { [ADDRESS]: address } }),
  );
}

/** Whether the request was taken: the browser goes on to the sign-in (an interaction's login page). */
async function signInAsked(answer: Promise<Response>): Promise<boolean> {
  const response = await answer;
  return (
    response.status === 303 && response.headers.get('location')!.startsWith(`${ISSUER}/login?interaction=`)
  );
}

let served = 0;
/** A fresh document URL on `server` (distinct paths: distinct client ids). */
function fresh(server = origin, overrides: Record<string, unknown> = {}, headers = {}): string {
  return server.json(`/bounds/${++served}.json`, document(overrides), headers);
}

describe('client ID metadata document bounds', () => {
  it('keep documents in memory only: the client registry stays empty (item 1)', async () => {
    const registry = memoryClientRegistry();
    const t = await instance({}, registry);
    const url = fresh();
    expect(await signInAsked(authorize(t, url))).toBe(true);
    expect(await registry.findClient(url, t.clock.now())).toBeNull();
    // The client is known (from the cache), without a second fetch.
    expect(await signInAsked(authorize(t, url))).toBe(true);
    expect(origin.count(url)).toBe(1);
  });

  it('charge each fetch to the client address: beyond maxFetchesPerAddress a 429 page, cached documents and other addresses unaffected (item 1)', async () => {
    const t = await instance({ maxFetchesPerAddress: 2, fetchWindowSeconds: 600 });
    const [first, second, third] = [fresh(), fresh(), fresh()];
    expect(await signInAsked(authorize(t, first))).toBe(true);
    expect(await signInAsked(authorize(t, second))).toBe(true);
    const refused = await authorize(t, third);
    expect(refused.status).toBe(429);
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(await refused.text()).toContain('Too many client metadata documents were fetched');
    expect(origin.count(third)).toBe(0);
    // A cached document costs nothing; the address's IPv6 neighbour-free peers have their own budget.
    expect(await signInAsked(authorize(t, first))).toBe(true);
    expect(await signInAsked(authorize(t, third, '203.0.113.9'))).toBe(true);
    // The window ends: the address may fetch again.
    t.clock.advance(601);
    expect(await signInAsked(authorize(t, fresh()))).toBe(true);
  });

  it('keep documents within maxCacheBytes, least recently used first (item 1)', async () => {
    // Seven redirect URIs of ~900 characters: ~6.4 KB of metadata, about 14 KB in the cache each.
    const long = Array.from({ length: 7 }, (_, i) => `https://app.example/${i}/${'x'.repeat(900)}`);
    const t = await instance({ maxCacheBytes: 65_536, maxBytes: 16_384, maxFetchesPerAddress: 100 });
    const urls = Array.from({ length: 6 }, () => fresh(origin, { redirect_uris: long }));
    for (const url of urls) expect((await authorize(t, url)).status).toBe(400); // not the test's redirect URI
    // The newest are kept, the oldest went to make room.
    await authorize(t, urls[5]!);
    expect(origin.count(urls[5]!)).toBe(1);
    await authorize(t, urls[0]!);
    expect(origin.count(urls[0]!)).toBe(2);
  });

  it('drop a document unused for minCacheSeconds whatever its max-age, and keep one in use up to its max-age (item 1)', async () => {
    const t = await instance({ minCacheSeconds: 60, maxCacheSeconds: 3600 });
    const used = fresh(origin, {}, { 'Cache-Control': 'max-age=150' });
    const unused = fresh(origin, {}, { 'Cache-Control': 'max-age=3600' });
    await authorize(t, used);
    await authorize(t, unused);
    for (let i = 0; i < 2; i++) {
      t.clock.advance(50);
      await authorize(t, used);
    }
    expect(origin.count(used)).toBe(1); // used every 50 s: kept
    t.clock.advance(51); // 151 s after the fetch: past its max-age, however much it is used
    await authorize(t, used);
    expect(origin.count(used)).toBe(2);
    await authorize(t, unused); // asked for max-age 3600, unused for 151 s
    expect(origin.count(unused)).toBe(2);
  });

  it('remember a failed fetch for 30 s: one outbound GET per interval, not per request (item 7)', async () => {
    const t = await instance();
    const missing = `${origin.origin}/bounds/missing-${++served}.json`;
    for (let i = 0; i < 5; i++) expect((await authorize(t, missing)).status).toBe(400);
    expect(origin.count(missing)).toBe(1);
    t.clock.advance(31);
    expect((await authorize(t, missing)).status).toBe(400);
    expect(origin.count(missing)).toBe(2);
  });

  it('cap fetches in flight per origin below the global cap, and per address: a slow origin starves no other (item 7)', async () => {
    const t = await instance({ maxConcurrentFetches: 16, maxConcurrentFetchesPerOrigin: 4 });
    let release: () => void = () => {};
    const held = new Promise<void>((resolve) => {
      release = resolve;
    });
    const slow = Array.from({ length: 5 }, () => {
      const path = `/bounds/slow-${++served}.json`;
      origin.routes.set(path, (_request, response) => {
        void held.then(() => response.writeHead(404).end());
      });
      return origin.origin + path;
    });
    // Four slow documents of one origin, from four addresses: the origin's share is taken.
    const pending = slow.slice(0, 4).map((url, i) => authorize(t, url, `192.0.2.${10 + i}`));
    await waitFor(() => origin.openConnections >= 4);
    const fifth = await authorize(t, slow[4]!, '192.0.2.99');
    expect(fifth.status).toBe(503);
    expect(fifth.headers.get('retry-after')).toBe('1');
    // Another origin is served meanwhile.
    expect(await signInAsked(authorize(t, fresh(otherOrigin), '192.0.2.99'))).toBe(true);
    release();
    for (const response of await Promise.all(pending)) expect(response.status).toBe(400);
  });

  it('refuse a host name that resolves to a loopback address with the default transport, without connecting (item 3)', async (context) => {
    // The machine's own name resolves to a loopback address on most hosts (/etc/hosts).
    const name = hostname();
    const resolved = await lookup(name, { all: true }).catch(() => []);
    if (!resolved.some((entry) => entry.address.startsWith('127.') || entry.address === '::1'))
      return context.skip();
    let connections = 0;
    const listener = createTcpServer((socket) => {
      connections++;
      socket.destroy();
    });
    await new Promise<void>((resolve) => listener.listen(0, '127.0.0.1', resolve));
    try {
      const port = (listener.address() as { port: number }).port;
      const t = await instance({ allowLoopback: false });
      const response = await authorize(t, `https://${name}:${port}/client.json`);
      expect(response.status).toBe(400);
      const page = await response.text();
      expect(page).toContain('no client metadata document naming it could be fetched from it');
      expect(page).not.toMatch(/loopback|private|resolve/i);
      expect(connections).toBe(0);
    } finally {
      await new Promise((resolve) => listener.close(resolve));
    }
  });

  it('describe no answer of the host: a 404, a 500, HTML and a foreign document read the same (item 3)', async () => {
    const t = await instance();
    const paths = {
      notFound: `/bounds/nf-${++served}.json`,
      failing: `/bounds/500-${++served}.json`,
      html: `/bounds/html-${++served}.json`,
    };
    origin.routes.set(paths.failing, (_request, response) => response.writeHead(500).end('{"boom":1}'));
    origin.routes.set(paths.html, (_request, response) => response.writeHead(200).end('<html>'));
    const foreign = origin.json(`/bounds/foreign-${++served}.json`, () =>
      document()('https://elsewhere.example/c'),
    );
    const descriptions = new Set<string>();
    for (const url of [...Object.values(paths).map((path) => origin.origin + path), foreign]) {
      const response = await authorize(t, url);
      expect(response.status).toBe(400);
      const text = await response.text();
      expect(text).not.toMatch(/HTTP 500|404|not JSON|client_id is not/);
      descriptions.add(/metadata document URL that cannot be used: [^<]*/.exec(text)![0]);
    }
    expect(descriptions.size).toBe(1);
  });
});

async function waitFor(condition: () => boolean): Promise<void> {
  for (let i = 0; i < 200 && !condition(); i++) await new Promise((resolve) => setTimeout(resolve, 5));
  expect(condition()).toBe(true);
}
