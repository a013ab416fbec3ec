/**
 * Round trips to the engine per request, for each workload of the bench on Redis and PostgreSQL:
 * the bench server (bench/server.mjs, Express) talks to its engine through a counting TCP proxy,
 * and each workload's requests are sent one at a time, so every burst of bytes the server writes
 * to the engine before the engine answers is one round trip (a Redis pipeline or a PostgreSQL
 * extended-protocol Parse/Bind/Execute/Sync batch counts once, as it costs once). Connections are
 * counted apart, so the pushed-revocations channel's probes (its own connection) count too.
 *
 * Run: `node bench/round-trips.mjs [redis,postgres]` after `pnpm run build`, with REDIS_URL and
 * DATABASE_URL set (defaults: the local services). Prints a Markdown table.
 */
import { createConnection, createServer } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { sendPrepared, startServer, WORKLOADS } from './harness.mjs';

const engines = (process.argv[2] ?? 'redis,postgres').split(',');
// The engines' own URLs (the loop below points the servers' variables at the proxy).
const configured = { REDIS_URL: process.env.REDIS_URL, DATABASE_URL: process.env.DATABASE_URL };
const REQUESTS = 40;
const WORKLOAD_IDS = ['W1', 'W2', 'W3', 'W4', 'W6'];

/**
 * A TCP proxy to `target` that counts round trips: bursts of the client's bytes (the server's
 * requests to the engine), a burst ending when the engine answers on that connection. Several
 * writes before any answer (a pipeline ioredis writes command by command) count once.
 */
async function countingProxy(target) {
  let writes = 0;
  const proxy = createServer((client) => {
    const upstream = createConnection(target);
    let answered = true;
    client.on('data', () => {
      if (answered) writes++;
      answered = false;
    });
    upstream.on('data', () => {
      answered = true;
    });
    client.pipe(upstream).pipe(client);
    const close = () => {
      client.destroy();
      upstream.destroy();
    };
    client.on('error', close);
    upstream.on('error', close);
  });
  await new Promise((resolve) => proxy.listen(0, '127.0.0.1', resolve));
  return {
    port: proxy.address().port,
    take() {
      const counted = writes;
      writes = 0;
      return counted;
    },
    close: () => new Promise((resolve) => proxy.close(resolve)),
  };
}

/** The engine's address, and the URL that points the server at `port` instead. */
function engineTarget(engine) {
  const name = engine === 'redis' ? 'REDIS_URL' : 'DATABASE_URL';
  const url = new URL(
    configured[name] ??
      (engine === 'redis' ? 'redis://127.0.0.1:6379' : 'postgres://postgres@127.0.0.1:5432/test'),
  );
  const target = { host: url.hostname, port: Number(url.port || (engine === 'redis' ? 6379 : 5432)) };
  return { name, target, via: (port) => Object.assign(new URL(url), { hostname: '127.0.0.1', port }).href };
}

/** Sends `requests` one at a time, waiting for each answer; fails on a non-2xx answer. */
async function sendEach(server, requests) {
  for (const prepared of requests) await sendPrepared(server, prepared);
}

const rows = [];
for (const engine of engines) {
  for (const pushed of ['1', '0']) {
    const { name, target, via } = engineTarget(engine);
    const proxy = await countingProxy(target);
    process.env[name] = via(proxy.port);
    process.env.BENCH_PUSHED = pushed;
    const server = await startServer('express', [], engine);
    try {
      for (const id of WORKLOAD_IDS) {
        const workload = WORKLOADS.find((candidate) => candidate.id === id);
        const [prepared] = await workload.prepare(server, REQUESTS, 1800);
        // One prepared request, sent REQUESTS times (fresh workloads take the next credential each time).
        const requests = Array.from({ length: REQUESTS }, () => prepared);
        await sendEach(server, requests.slice(0, 2)); // warm: first-use lookups, cache fills
        await sleep(200); // let the mirror's probes and background writes of the warm-up pass
        proxy.take();
        await sendEach(server, requests.slice(2));
        const perRequest = proxy.take() / (requests.length - 2);
        rows.push({ engine, pushed: pushed === '1', id, name: workload.name, perRequest });
      }
    } finally {
      server.child.kill('SIGTERM');
      await new Promise((resolve) => server.child.once('exit', resolve));
      await proxy.close();
    }
  }
}

console.log(
  `\n### Round trips to the engine per request (Express, ${REQUESTS - 2} sequential requests each)\n`,
);
console.log('| workload | engine | pushed revocations | round trips per request |');
console.log('| --- | --- | --- | ---: |');
for (const row of rows)
  console.log(
    `| ${row.id} ${row.name} | ${row.engine} | ${row.pushed ? 'on' : 'off'} | ${row.perRequest.toFixed(2)} |`,
  );
