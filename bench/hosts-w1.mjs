/**
 * W1 (a bearer-protected route of the host, `requireAuth({ schemes: ['bearer'] })`, a token
 * verified before) on Express, through a `createGatehouseHost` holding `BENCH_INSTANCES` (1,000)
 * live instances vs through one instance: two server processes, autocannon from this one, rounds
 * interleaved (single, host, host, single, …), medians.
 * Run: `node bench/hosts-w1.mjs` (needs a build). `BENCH_DURATION` (5 s), `BENCH_ROUNDS` (4).
 */
import { spawn } from 'node:child_process';
import { once } from 'node:events';
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
    const count = Number(process.env.BENCH_INSTANCES ?? 1000);
    for (let i = 0; i < count; i++) await target.instance(`t${i}`);
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
  const start = async (mode) => {
    const child = spawn(process.execPath, [self, '--serve', mode], { stdio: ['ignore', 'pipe', 'inherit'] });
    let out = '';
    for await (const chunk of child.stdout) {
      out += chunk;
      const match = /READY (\d+) (\S+)/.exec(out);
      if (match) return { child, port: Number(match[1]), token: match[2] };
    }
    throw new Error(`${mode} server exited`);
  };
  const servers = { single: await start('single'), host: await start('host') };
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
  for (const name of ['single', 'host']) await run(servers[name], 2); // warm-up
  const rates = { single: [], host: [] };
  for (let r = 0; r < rounds; r++) {
    for (const name of r % 2 ? ['host', 'single'] : ['single', 'host'])
      rates[name].push(await run(servers[name], duration));
  }
  const median = (v) => {
    const s = [...v].sort((a, b) => a - b);
    return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
  };
  console.log(
    `\n### many instances: W1 on Express, host (${process.env.BENCH_INSTANCES ?? 1000} live instances) vs single\n`,
  );
  console.log('| through | req/s (median) | rounds |');
  console.log('|---|---:|---|');
  for (const name of ['single', 'host'])
    console.log(
      `| ${name} | ${Math.round(median(rates[name])).toLocaleString('en')} | ${rates[name].map(Math.round).join(', ')} |`,
    );
  console.log(`\nhost / single: ${(median(rates.host) / median(rates.single)).toFixed(3)}`);
  for (const { child } of Object.values(servers)) child.kill();
}
