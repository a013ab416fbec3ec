/**
 * W1 (a bearer-protected route of the host, `requireAuth({ schemes: ['bearer'] })`, a token
 * verified before) on Express, through a `createGatehouseHost` holding each of `BENCH_INSTANCES`
 * (a comma-separated list, default 1000) live instances vs through one instance: one server
 * process per configuration, autocannon from this one, rounds interleaved (the order reversed
 * every other round), medians, and each server's RSS after the runs; with several counts, the
 * line through them (req/s and RSS against live instances).
 * Run: `node bench/hosts-w1.mjs` (needs a build). `BENCH_DURATION` (5 s), `BENCH_ROUNDS` (4).
 */
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';

const require = createRequire(new URL('../examples/express/package.json', import.meta.url));
const ORIGIN_HOST = '127.0.0.1';

if (process.argv[2] === '--serve') {
  const mode = process.argv[3];
  const core = await import('../packages/core/dist/index.js');
  const { requireAuth } = await import(require.resolve('@gatehousejs/express'));
  const express = require('express');
  const app = express();
  const server = app.listen(0, ORIGIN_HOST);
  await once(server, 'listening');
  const origin = `http://localhost:${server.address().port}`;
  const hasher = core.pbkdf2Hasher({ iterations: 1000 });
  const passwordHash = await hasher.hash('demo-password');
  const key = await core.generateKeys('ES256');
  const options = (name) => ({
    keys: [key],
    clients: core.memoryClientStore([]),
    users: core.memoryUserStore([{ id: `user-${name}`, username: 'demo', passwordHash }], { hasher }),
  });
  let target;
  if (mode === 'host') {
    target = core.createGatehouseHost({ origin, resolve: options, maxLiveInstances: 100_000 });
    const count = Number(process.argv[4]);
    for (let i = 1; i <= count; i++) await target.instance(`t${i}`);
  } else {
    target = core.createGatehouse({ issuer: `${origin}/t1`, ...options('t1') });
  }
  const response = await target.fetch(
    new Request(`${origin}/t1/auth/v1/token`, {
      method: 'POST',
      headers: { Authorization: `Basic ${btoa('demo:demo-password')}` },
    }),
  );
  const { access_token } = await response.json();
  app.get('/t1/api', requireAuth(target, { schemes: ['bearer'] }), (_req, res) => {
    res.json({ ok: true });
  });
  console.log(`READY ${server.address().port} ${access_token}`);
} else {
  const autocannon = require('autocannon');
  const duration = Number(process.env.BENCH_DURATION ?? 5);
  const rounds = Number(process.env.BENCH_ROUNDS ?? 4);
  const self = fileURLToPath(import.meta.url);
  const start = async (mode, count = 0) => {
    const child = spawn(process.execPath, [self, '--serve', mode, String(count)], {
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    let out = '';
    for await (const chunk of child.stdout) {
      out += chunk;
      const match = /READY (\d+) (\S+)/.exec(out);
      if (match) return { child, port: Number(match[1]), token: match[2] };
    }
    throw new Error(`${mode} server exited`);
  };
  const counts = (process.env.BENCH_INSTANCES ?? '1000').split(',').map(Number);
  const servers = { single: await start('single') };
  for (const count of counts) servers[`host ${count}`] = await start('host', count);
  const names = Object.keys(servers);
  const run = async ({ port, token }, seconds) => {
    const result = await autocannon({
      url: `http://${ORIGIN_HOST}:${port}/t1/api`,
      connections: 32,
      duration: seconds,
      headers: { authorization: `Bearer ${token}` },
    });
    if (result.non2xx || result.errors) throw new Error(`non-2xx ${result.non2xx}, errors ${result.errors}`);
    return result.requests.average;
  };
  for (const name of names) await run(servers[name], 2); // warm-up
  const rates = Object.fromEntries(names.map((name) => [name, []]));
  for (let r = 0; r < rounds; r++) {
    for (const name of r % 2 ? [...names].reverse() : names)
      rates[name].push(await run(servers[name], duration));
  }
  const rss = (pid) => {
    try {
      return Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1]) / 1024;
    } catch {
      return Number.NaN;
    }
  };
  const median = (v) => {
    const s = [...v].sort((a, b) => a - b);
    return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
  };
  console.log(
    `\n### many instances: W1 on Express, through a host with ${counts.join(' / ')} live instances vs single\n`,
  );
  console.log('| through | req/s (median) | × single | server RSS | rounds |');
  console.log('|---|---:|---:|---:|---|');
  const single = median(rates.single);
  for (const name of names)
    console.log(
      `| ${name} | ${Math.round(median(rates[name])).toLocaleString('en')} | ${(median(rates[name]) / single).toFixed(3)} | ${rss(servers[name].child.pid).toFixed(1)} MB | ${rates[name].map(Math.round).join(', ')} |`,
    );
  if (counts.length > 1) {
    // Least-squares lines against live instances.
    const line = (ys) => {
      const mx = counts.reduce((a, b) => a + b) / counts.length;
      const my = ys.reduce((a, b) => a + b) / ys.length;
      const slope =
        counts.reduce((s, x, i) => s + (x - mx) * (ys[i] - my), 0) /
        counts.reduce((s, x) => s + (x - mx) ** 2, 0);
      return { at0: my - slope * mx, slope };
    };
    const hosts = counts.map((count) => `host ${count}`);
    const w1 = line(hosts.map((name) => median(rates[name]) / single));
    const memory = line(hosts.map((name) => rss(servers[name].child.pid)));
    console.log(
      `\nline: W1 × single = ${w1.at0.toFixed(3)} ${w1.slope < 0 ? '−' : '+'} ${Math.abs(w1.slope * 1000).toFixed(4)} per 1,000 live instances; RSS = ${memory.at0.toFixed(1)} MB + ${((memory.slope * 1024 * 1024) / 1024).toFixed(1)} KB per live instance`,
    );
  }
  for (const { child } of Object.values(servers)) child.kill();
}
