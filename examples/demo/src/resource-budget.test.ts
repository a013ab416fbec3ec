/**
 * The resource budget of anonymous callers (issue 27, acceptance), over HTTP, on every engine the
 * environment names (memory always; Redis with REDIS_URL, PostgreSQL with DATABASE_URL):
 *
 * - 5,000 anonymous authorize requests from one address, each naming a distinct client ID
 *   metadata document of ~16 KB (served from loopback servers on four ports, `allowLoopback`);
 * - 300 anonymous token requests naming 300 distinct `jwks_uri`s of ~32 KB (through 300 more
 *   metadata documents of `private_key_jwt` clients);
 *
 * with the per-address fetch budget lifted (the worst case: as if every request came from an
 * address of its own). They grow the server's heap by less than 50 MB, store less than 128 KB in
 * Redis or PostgreSQL, hold at most 16 outbound connections per document kind, and are never
 * answered 5xx. The stored bound: documents, key sets and their fetch budgets are never written
 * to an engine; what is stored is the replay id of each of the 300 assertions that verified and
 * its client's replay quota counter (both kept until the assertion's `exp`, at most 200 bytes
 * each: 120,000 bytes for 300 clients) and nothing else.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import {
  createGatehouse,
  type GatehouseStorage,
  generateKeys,
  type InstanceStorage,
  JWT_BEARER_ASSERTION_TYPE,
  memoryClientStore,
  memoryStorage,
  memoryUserStore,
  type OutboundFetch,
} from '@gatehousejs/core';
import { addressCheckingFetch, sendWebResponse, toWebRequest } from '@gatehousejs/core/node';
import { exportJWK, generateKeyPair, SignJWT } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;

const DOCUMENTS = 5000;
const KEY_SETS = 300;
const CONCURRENCY = 4;
const MAX_HEAP_GROWTH = 50 * 1024 * 1024;
/**
 * 300 replay ids and 300 per-client quota counters of at most 200 bytes each (the only records
 * written), with room to spare.
 */
const MAX_STORED_BYTES = 128 * 1024;
const MAX_OUTBOUND = 16;

/** Loopback servers of documents (one per port: distinct origins), counting open connections. */
class Origins {
  readonly servers: Server[] = [];
  readonly origins: string[] = [];
  open = 0;
  maxOpen = 0;
  requests = 0;

  constructor(private readonly answer: (path: string, origin: string) => string | undefined) {}

  async start(count: number): Promise<void> {
    for (let i = 0; i < count; i++) {
      const server = createServer((request, response) => {
        this.requests++;
        const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
        const body = this.answer(request.url ?? '/', origin);
        if (body === undefined) response.writeHead(404).end();
        else response.writeHead(200, { 'Content-Type': 'application/json' }).end(body);
      });
      server.on('connection', (socket) => {
        this.open++;
        this.maxOpen = Math.max(this.maxOpen, this.open);
        socket.once('close', () => this.open--);
      });
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
      this.servers.push(server);
      this.origins.push(`http://127.0.0.1:${(server.address() as AddressInfo).port}`);
    }
  }

  async stop(): Promise<void> {
    for (const server of this.servers) {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    }
  }
}

const REDIRECT = (i: number, n: number) => `https://app${i}.example/callback/${n}/${'r'.repeat(600)}`;
const PADDING = 'p'.repeat(8200);

/** A ~16 KB metadata document: ten long redirect URIs (~6.5 KB kept) and an ignored member. */
function document(clientId: string, i: number, extra: Record<string, unknown> = {}): string {
  return JSON.stringify({
    client_id: clientId,
    client_name: `Budget ${i}`,
    redirect_uris: Array.from({ length: 10 }, (_, n) => REDIRECT(i, n)),
    token_endpoint_auth_method: 'none',
    padding: PADDING,
    ...extra,
  });
}

/** Runs `task(i)` for i in [0, count) with `concurrency` at a time. */
async function pool(count: number, concurrency: number, task: (i: number) => Promise<void>): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < count) await task(next++);
    }),
  );
}

/** The stored bytes an engine holds for the test's namespace. */
type StoredBytes = () => Promise<number>;

interface Engine {
  readonly name: string;
  readonly storage: () => Promise<{
    stores: InstanceStorage;
    bytes: StoredBytes;
    close(): Promise<void>;
  }>;
}

const namespace = `budget_${process.pid}_${Date.now()}`;
const engines: Engine[] = [
  {
    name: 'memory',
    storage: async () => ({ stores: memoryStorage(), bytes: async () => 0, close: async () => {} }),
  },
];
if (process.env.REDIS_URL)
  engines.push({
    name: 'redis',
    storage: async () => {
      const { redisStorage } = await import('@gatehousejs/redis');
      const prefix = `${namespace}_r`;
      const storage = redisStorage({ url: process.env.REDIS_URL!, prefix });
      await storage.ready();
      const redis = storage.client;
      const keys = async () => {
        const found: string[] = [];
        for (const node of 'nodes' in redis ? redis.nodes('master') : [redis]) {
          let cursor = '0';
          do {
            const [next, batch] = await node.scan(cursor, 'MATCH', `${prefix}:*`, 'COUNT', 1000);
            cursor = next;
            found.push(...batch);
          } while (cursor !== '0');
        }
        return found;
      };
      return {
        stores: stores(storage),
        bytes: async () => {
          let total = 0;
          for (const key of await keys()) total += Number((await redis.memory('USAGE', key)) ?? 0);
          return total;
        },
        close: async () => {
          await storage.clear();
          await storage.close();
        },
      };
    },
  });
if (process.env.DATABASE_URL)
  engines.push({
    name: 'postgres',
    storage: async () => {
      const { migrate, postgresStorage } = await import('@gatehousejs/postgres');
      const schema = `${namespace}_p`;
      const storage = postgresStorage({ connectionString: process.env.DATABASE_URL!, schema });
      await migrate(storage.pool, { schema });
      return {
        stores: stores(storage),
        bytes: async () => {
          const { rows } = (await storage.pool.query(
            'SELECT table_name FROM information_schema.tables WHERE table_schema = $1',
            [schema],
          )) as { rows: { table_name: string }[] };
          let total = 0;
          for (const { table_name } of rows) {
            const sized = (await storage.pool.query(
              `SELECT sum(pg_column_size(t.*)) AS bytes FROM "${schema}"."${table_name}" t`,
            )) as { rows: { bytes: string | null }[] };
            total += Number(sized.rows[0]?.bytes ?? 0);
          }
          return total;
        },
        close: async () => {
          await storage.pool.query(`DROP SCHEMA "${schema}" CASCADE`);
          await storage.close();
        },
      };
    },
  });

/** The stores of an engine's storage, without its lifecycle members. */
function stores(storage: GatehouseStorage): InstanceStorage {
  const { grants, clients, kv } = storage;
  return { grants, clients, kv };
}

/** The Node transport, connecting over http to the loopback key set servers an https URI names. */
const loopbackKeySets: OutboundFetch = (() => {
  const transport = addressCheckingFetch();
  return (request) => transport({ ...request, url: new URL(request.url.href.replace(/^https:/, 'http:')) });
})();

describe.each(engines)('the anonymous resource budget on $name', (engine) => {
  const key = generateKeyPair('ES256', { extractable: true });
  let documents: Origins;
  let keySets: Origins;
  beforeAll(async () => {
    const { publicKey } = await key;
    const jwk = { ...(await exportJWK(publicKey)), kid: 'budget', alg: 'ES256' };
    documents = new Origins((path, origin) => {
      const plain = /^\/d\/(\d+)\.json$/.exec(path);
      if (plain) return document(origin + path, Number(plain[1]));
      const keyed = /^\/j\/(\d+)\.json$/.exec(path);
      if (!keyed) return undefined;
      const i = Number(keyed[1]);
      // jwks_uri must be https: the test transport connects to it over http on loopback.
      const port = new URL(keySets.origins[i % keySets.origins.length]!).port;
      return document(origin + path, i, {
        token_endpoint_auth_method: 'private_key_jwt',
        jwks_uri: `https://127.0.0.1:${port}/k/${i}.json`,
        redirect_uris: [REDIRECT(i, 0)],
      });
    });
    keySets = new Origins((path) =>
      /^\/k\/\d+\.json$/.test(path)
        ? JSON.stringify({ keys: [jwk], padding: 'k'.repeat(32_000) })
        : undefined,
    );
    await documents.start(4);
    await keySets.start(4);
  });
  afterAll(async () => {
    await documents.stop();
    await keySets.stop();
  });

  it(`takes ${DOCUMENTS} metadata documents and ${KEY_SETS} jwks_uris from one address within the budget`, async () => {
    const storage = await engine.storage();
    const server = createServer();
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    const gatehouse = createGatehouse({
      issuer,
      keys: [await generateKeys('ES256')],
      clients: memoryClientStore([]),
      users: memoryUserStore([]),
      logger: { warn() {}, error() {} },
      storage: storage.stores,
      clientMetadataDocuments: { allowLoopback: true, maxFetchesPerAddress: 1_000_000 },
      clientJwks: { allowLoopback: true, fetch: loopbackKeySets, maxFetchesPerAddress: 1_000_000 },
    });
    await gatehouse.ready();
    server.on('request', async (req, res) => {
      await sendWebResponse(res, await gatehouse.fetch(toWebRequest(req)));
    });
    const statuses = new Map<number, number>();
    const count = (status: number) => statuses.set(status, (statuses.get(status) ?? 0) + 1);
    try {
      const storedBefore = await storage.bytes();
      gc();
      const heapBefore = process.memoryUsage().heapUsed;
      const started = Date.now();

      await pool(DOCUMENTS, CONCURRENCY, async (i) => {
        const clientId = `${documents.origins[i % documents.origins.length]}/d/${i}.json`;
        const query = new URLSearchParams({
          response_type: 'code',
          client_id: clientId,
          redirect_uri: REDIRECT(i, 0),
          state: 's',
          code_challenge: 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM',
          code_challenge_method: 'S256',
          // No session: answered login_required once the client is resolved (the document
          // fetched and checked): an error page, since a self-registered client gets no error
          // redirect. It keeps the test's own work small.
          prompt: 'none',
        });
        const response = await fetch(`${issuer}/oauth2/v1/authorize?${query}`, { redirect: 'manual' });
        await response.arrayBuffer();
        count(response.status);
      });

      const { privateKey } = await key;
      await pool(KEY_SETS, CONCURRENCY, async (i) => {
        const clientId = `${documents.origins[i % documents.origins.length]}/j/${i}.json`;
        const now = Math.floor(Date.now() / 1000);
        const assertion = await new SignJWT({})
          .setProtectedHeader({ alg: 'ES256', kid: 'budget' })
          .setIssuer(clientId)
          .setSubject(clientId)
          .setAudience(issuer)
          .setIssuedAt(now)
          .setExpirationTime(now + 60)
          .setJti(crypto.randomUUID())
          .sign(privateKey);
        const response = await fetch(`${issuer}/oauth2/v1/token`, {
          method: 'POST',
          headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
          body: new URLSearchParams({
            grant_type: 'authorization_code',
            code: `no-such-code-${i}`,
            redirect_uri: REDIRECT(i, 0),
            code_verifier: 'dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk',
            client_assertion_type: JWT_BEARER_ASSERTION_TYPE,
            client_assertion: assertion,
          }),
        });
        await response.arrayBuffer();
        count(response.status);
      });

      gc();
      const heapGrowth = process.memoryUsage().heapUsed - heapBefore;
      const stored = (await storage.bytes()) - storedBefore;
      const figures = {
        engine: engine.name,
        seconds: (Date.now() - started) / 1000,
        heapGrowthMB: Math.round((heapGrowth / 1024 / 1024) * 10) / 10,
        storedBytes: stored,
        maxDocumentConnections: documents.maxOpen,
        maxKeySetConnections: keySets.maxOpen,
        documentFetches: documents.requests,
        keySetFetches: keySets.requests,
        statuses: Object.fromEntries(statuses),
      };
      console.log('resource budget', JSON.stringify(figures));

      expect([...statuses.keys()].every((status) => status < 500)).toBe(true);
      expect(heapGrowth).toBeLessThan(MAX_HEAP_GROWTH);
      expect(stored).toBeLessThan(MAX_STORED_BYTES);
      expect(documents.maxOpen).toBeLessThanOrEqual(MAX_OUTBOUND);
      expect(keySets.maxOpen).toBeLessThanOrEqual(MAX_OUTBOUND);
      // The requests did reach the fetch path: most documents and key sets were fetched.
      expect(documents.requests).toBeGreaterThan(DOCUMENTS / 2);
      expect(keySets.requests).toBeGreaterThan(KEY_SETS / 2);
    } finally {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
      await storage.close();
    }
  }, 240_000);
});
