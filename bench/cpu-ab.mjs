/**
 * CPU per request of one workload on two or more checkouts' bench servers, side by side: each
 * server (bench/server.mjs of its checkout, memory engine) gets batches of `batch` requests over 4
 * keep-alive connections in turn, and its CPU time (Linux /proc: every thread, user + system) per
 * request is taken per batch. Alternating batches, a loaded machine slows every checkout alike,
 * which is what makes the comparison usable where throughput figures are noise.
 *
 *   node bench/cpu-ab.mjs [express|koa|hono|fastify] [W0|W1|W2|W3|W3o] [batch] [batches] tree …
 *
 * Fresh-credential workloads (W2, W3, W3o) mint every credential before the first batch.
 */
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import http from 'node:http';
import path from 'node:path';

const [adapter = 'fastify', id = 'W2', batchArg = '1000', batchesArg = '9', ...treeArgs] =
  process.argv.slice(2);
const batch = Number(batchArg);
const batches = Number(batchesArg);
const trees = treeArgs.map((tree) => path.resolve(tree));
const CONNECTIONS = 4;
const CLIENT_BASIC = `Basic ${btoa('demo-client:demo-secret')}`;
const FORM = 'application/x-www-form-urlencoded';

function start(tree) {
  const child = spawn(process.execPath, ['--import', 'tsx', 'bench/server.mjs', '--adapter', adapter], {
    cwd: tree,
    stdio: ['ignore', 'pipe', 'inherit'],
    env: process.env,
  });
  process.once('exit', () => child.kill('SIGTERM'));
  return new Promise((resolve, reject) => {
    let output = '';
    child.once('exit', (code) => reject(new Error(`${tree}: server exited with ${code}`)));
    child.stdout.on('data', (chunk) => {
      output += chunk;
      const match = /LISTENING (\d+)/.exec(output);
      if (match) {
        child.stdout.removeAllListeners('data');
        child.stdout.resume();
        resolve({
          tree,
          child,
          port: Number(match[1]),
          agent: new http.Agent({ keepAlive: true, maxSockets: CONNECTIONS }),
          cpu: [],
        });
      }
    });
  });
}

function request(server, method, target, headers, body) {
  return new Promise((resolve, reject) => {
    const req = http.request(
      { host: '127.0.0.1', port: server.port, method, path: target, headers, agent: server.agent },
      (res) => {
        const chunks = [];
        res.on('data', (chunk) => chunks.push(chunk));
        res.on('end', () => resolve({ status: res.statusCode, body: Buffer.concat(chunks).toString() }));
      },
    );
    req.once('error', reject);
    req.end(body);
  });
}

async function prepare(server) {
  if (id === 'W0') return { method: 'GET', target: '/bench/ping', headers: {}, body: () => undefined };
  if (id === 'W1') {
    // One access token for every request, as bench/run.mjs's W1 (the bearer check of requireAuth).
    const minted = await request(server, 'POST', '/bench/mint?kind=access&count=1', {});
    if (minted.status !== 200) throw new Error(`mint: ${minted.status} ${minted.body}`);
    const [token] = JSON.parse(minted.body).tokens;
    return {
      method: 'GET',
      target: '/bench/api',
      headers: { authorization: `Bearer ${token}` },
      body: () => undefined,
    };
  }
  const kind = { W2: 'refresh', W3: 'code-api', W3o: 'code' }[id];
  if (!kind) throw new Error(`unknown workload ${id}`);
  const minted = await request(
    server,
    'POST',
    `/bench/mint?kind=${kind}&count=${batch * (batches + 1)}&lifetime=3600`,
    {},
  );
  if (minted.status !== 200) throw new Error(`mint: ${minted.status} ${minted.body}`);
  const { tokens, redirectUri, verifier } = JSON.parse(minted.body);
  const redirect = encodeURIComponent(redirectUri);
  let next = 0;
  return {
    method: 'POST',
    target: '/demo/oauth2/v1/token',
    headers: { authorization: CLIENT_BASIC, 'content-type': FORM },
    body: () =>
      id === 'W2'
        ? `grant_type=refresh_token&refresh_token=${tokens[next++]}`
        : `grant_type=authorization_code&code=${tokens[next++]}&redirect_uri=${redirect}&code_verifier=${verifier}`,
  };
}

async function send(server, n) {
  let left = n;
  const worker = async () => {
    while (left > 0) {
      left--;
      const { status, body } = await request(
        server,
        server.route.method,
        server.route.target,
        server.route.headers,
        server.route.body(),
      );
      if (status !== 200) throw new Error(`${server.tree} ${id}: ${status} ${body}`);
    }
  };
  await Promise.all(Array.from({ length: CONNECTIONS }, worker));
}

/** CPU time of a process, every thread (Linux /proc), in clock ticks of 10 ms. */
function ticks(pid) {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ').at(-1).split(' ');
  return Number(fields[11]) + Number(fields[12]);
}

const servers = [];
for (const tree of trees) servers.push(await start(tree));
for (const server of servers) {
  server.route = await prepare(server);
  await send(server, batch); // warm-up
}
for (let b = 0; b < batches; b++) {
  for (const server of servers) {
    const before = ticks(server.child.pid);
    await send(server, batch);
    server.cpu.push(((ticks(server.child.pid) - before) * 10_000) / batch);
  }
}
for (const server of servers) {
  const sorted = [...server.cpu].sort((a, b) => a - b);
  const mean = server.cpu.reduce((a, b) => a + b, 0) / server.cpu.length;
  console.log(
    `${adapter} ${id} ${server.tree}: median ${sorted[sorted.length >> 1].toFixed(1)} µs CPU/req, mean ${mean.toFixed(1)} (batches of ${batch}: ${server.cpu.map((v) => v.toFixed(0)).join(' ')})`,
  );
  server.agent.destroy();
  server.child.kill('SIGTERM');
}
process.exit(0);
