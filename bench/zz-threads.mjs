import { readdirSync, readFileSync } from 'node:fs';
import { measure, startServer, WORKLOADS } from './harness.mjs';

const [adapter = 'fastify', id = 'W2', secs = '5', bareArg] = process.argv.slice(2);
const server = await startServer(adapter, [], 'memory', bareArg === 'bare');
function threads(pid) {
  const out = {};
  for (const t of readdirSync(`/proc/${pid}/task`)) {
    const stat = readFileSync(`/proc/${pid}/task/${t}/stat`, 'utf8');
    const name = stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')'));
    const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    const key = `${name}#${t}`;
    out[key] = out[key] ?? { u: 0, s: 0 };
    out[key].u += Number(f[11]);
    out[key].s += Number(f[12]);
  }
  return out;
}
const w = WORKLOADS.find((x) => x.id === id);
await measure(server, w, 1);
const before = threads(server.child.pid);
const r = await measure(server, w, Number(secs));
const after = threads(server.child.pid);
console.log(
  `${adapter} ${id}: ${r.rps.toFixed(0)} req/s, ${r.total} req, cpu ${r.cpuMicrosPerRequest?.toFixed(0)} µs/req`,
);
for (const k of Object.keys(after)) {
  const u = ((after[k].u - (before[k]?.u ?? 0)) * 1e4) / r.total,
    s = ((after[k].s - (before[k]?.s ?? 0)) * 1e4) / r.total;
  if (u + s > 0.5) console.log(`  ${k.padEnd(20)} user ${u.toFixed(1)} µs  sys ${s.toFixed(1)} µs`);
}
server.child.kill('SIGTERM');
process.exit(0);
