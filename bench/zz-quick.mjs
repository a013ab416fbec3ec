import { measure, startServer, WORKLOADS } from './harness.mjs';

const [adapter = 'fastify', ids = 'W0,W2,W3', secs = '5'] = process.argv.slice(2);
const bare = await startServer(adapter, [], 'memory', true);
const server = await startServer(adapter, [], 'memory');
for (const id of ids.split(',')) {
  const w = WORKLOADS.find((x) => x.id === id);
  const target = id === 'W0' ? bare : server;
  await measure(target, w, 1);
  const r = await measure(target, w, Number(secs));
  console.log(
    `${adapter} ${id}: ${r.rps.toFixed(0)} req/s, cpu ${r.cpuMicrosPerRequest?.toFixed(0)} µs/req, non2xx ${r.non2xx}`,
  );
}
for (const s of [bare, server]) s.child.kill('SIGTERM');
process.exit(0);
