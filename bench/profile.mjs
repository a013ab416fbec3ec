/**
 * Where does the time go? Runs one workload against a bench server started with `--cpu-prof`, then
 * prints the functions with the most self time and the share per package/area.
 *
 *   node bench/profile.mjs [W2] [express|hono|fastify] [seconds] [memory|redis|postgres]
 *
 * The raw `.cpuprofile` stays in the printed directory: open it in Chrome DevTools (Performance) or
 * speedscope for a flame graph.
 */
import { mkdtempSync, readdirSync, readFileSync, statSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { measure, startServer, WORKLOADS } from './harness.mjs';

const [id = 'W2', adapter = 'express', seconds = '8', engine = 'memory'] = process.argv.slice(2);
const workload = WORKLOADS.find((w) => w.id === id);
if (!workload) throw new Error(`unknown workload ${id}`);
// Paths inside this checkout are shown relative to it (`packages/core/...`), wherever it lives.
const ROOT_URL = new URL('../', import.meta.url).href;
const dir = mkdtempSync(path.join(os.tmpdir(), 'gatehouse-prof-'));

const server = await startServer(adapter, ['--cpu-prof', '--cpu-prof-dir', dir], engine);
// Only the chosen workload is sampled.
const run = await measure(server, workload, Number(seconds));
console.log(`${adapter} ${id}: ${run.rps.toFixed(0)} req/s, ${run.total} requests, non-2xx ${run.non2xx}`);
await new Promise((resolve) => {
  server.child.once('exit', resolve);
  server.child.kill('SIGTERM');
});

// The main thread's profile is the largest (the loader thread of tsx writes a small one too).
const file = readdirSync(dir)
  .filter((name) => name.endsWith('.cpuprofile'))
  .sort((a, b) => statSync(path.join(dir, b)).size - statSync(path.join(dir, a)).size)[0];
const profile = JSON.parse(readFileSync(path.join(dir, file), 'utf8'));
summarize(profile);
console.log(`\nprofile: ${path.join(dir, file)}`);

/** Self time per function and per area, from the sampled call tree. */
function summarize({ nodes, samples, timeDeltas }) {
  const byId = new Map(nodes.map((node) => [node.id, node]));
  const self = new Map();
  for (let i = 0; i < samples.length; i++)
    self.set(samples[i], (self.get(samples[i]) ?? 0) + (timeDeltas[i] ?? 0));
  const total = [...self.values()].reduce((a, b) => a + b, 0);
  const byFunction = new Map();
  const byArea = new Map();
  for (const [nodeId, time] of self) {
    const { callFrame } = byId.get(nodeId);
    const area = areaOf(callFrame.url, callFrame.functionName);
    const key = `${callFrame.functionName || '(anonymous)'} ${shortUrl(callFrame.url)}:${callFrame.lineNumber + 1}`;
    byFunction.set(key, (byFunction.get(key) ?? 0) + time);
    byArea.set(area, (byArea.get(area) ?? 0) + time);
  }
  const pct = (t) => `${((100 * t) / total).toFixed(1).padStart(5)} %`;
  console.log('\nself time by area:');
  for (const [area, time] of [...byArea].sort((a, b) => b[1] - a[1]).slice(0, 14))
    console.log(`  ${pct(time)}  ${area}`);
  console.log('\ntop functions by self time:');
  for (const [key, time] of [...byFunction].sort((a, b) => b[1] - a[1]).slice(0, 30))
    console.log(`  ${pct(time)}  ${key}`);
}

function shortUrl(url) {
  return url
    .replace(/^file:\/\/.*?\/node_modules\/(\.pnpm\/[^/]+\/node_modules\/)?/, '')
    .replace(ROOT_URL, '');
}

function areaOf(url, name) {
  if (!url) return name.startsWith('(') ? name : '(native / V8 builtins)';
  if (url.startsWith('node:')) return `node: ${url.slice(5).split('/')[0]}`;
  const short = shortUrl(url);
  if (short.startsWith('packages/')) return short.split('/').slice(0, 2).join('/');
  return short.split('/')[0].startsWith('@') ? short.split('/').slice(0, 2).join('/') : short.split('/')[0];
}
