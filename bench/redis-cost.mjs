/**
 * What a token request costs Redis, and the Node server, per request: the bench server
 * (bench/server.mjs, Express) on the Redis engine (REDIS_URL) runs `requests` W2 or W3 requests
 * over a few keep-alive connections, around which this reads Redis's own counters:
 *   - `INFO cpu` (redis-server's user + system CPU: the whole server, so give it a Redis of its own
 *     for a clean figure) and `INFO commandstats` (calls and µs inside each command, scripts'
 *     inner commands included), both after `CONFIG RESETSTAT`;
 *   - the server process's CPU time (/proc/<pid>/stat, Linux) over the same requests.
 * With `memory` as the engine only the server's CPU is printed (the baseline the Redis figure is
 * compared with). CPU time is less load-sensitive than throughput on a shared machine, not immune
 * (cache effects): compare runs made one after the other, several rounds each.
 *
 *   REDIS_URL=redis://127.0.0.1:6379/5 node bench/redis-cost.mjs [W2|W3] [redis|memory] [requests] [rounds]
 */
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { startServer, WORKLOADS } from './harness.mjs';

const [id = 'W2', engine = 'redis', count = '2000', roundsArg = '3'] = process.argv.slice(2);
const REQUESTS = Number(count);
const ROUNDS = Number(roundsArg);
const WARMUP = 500;
const CONNECTIONS = 4;
const workload = WORKLOADS.find((candidate) => candidate.id === id);
if (!workload?.fresh) throw new Error(`${id}: a fresh-credential workload (W2, W3) is expected`);

// No default: CONFIG RESETSTAT is server-wide, so the server is named on purpose.
if (engine === 'redis' && !process.env.REDIS_URL)
  throw new Error('set REDIS_URL (a server, or a database, of your own)');
const url = new URL(process.env.REDIS_URL ?? 'redis://127.0.0.1:6379');
const cliArgs = ['-h', url.hostname, '-p', url.port || '6379', '-n', url.pathname.slice(1) || '0'];
const redisCli = (...args) => execFileSync('redis-cli', [...cliArgs, ...args], { encoding: 'utf8' });

/** `INFO <section>` as a map of field → value. */
function info(section) {
  const fields = {};
  for (const line of redisCli('INFO', section).split(/\r?\n/)) {
    const colon = line.indexOf(':');
    if (colon > 0) fields[line.slice(0, colon)] = line.slice(colon + 1);
  }
  return fields;
}

function serverCpuSeconds(pid) {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ').at(-1).split(' ');
  return (Number(fields[11]) + Number(fields[12])) / 100;
}

/** Sends the prepared requests over {@link CONNECTIONS} concurrent loops; throws on a non-2xx. */
async function send(server, prepared, n) {
  let left = n;
  const loop = async () => {
    while (left-- > 0) {
      const request = prepared.setupRequest({ ...prepared });
      const response = await fetch(server.url + request.path, {
        method: request.method,
        headers: request.headers,
        body: request.body,
      });
      const text = await response.text();
      if (!response.ok) throw new Error(`${request.path}: ${response.status} ${text}`);
    }
  };
  await Promise.all(Array.from({ length: CONNECTIONS }, loop));
}

const server = await startServer('express', [], engine);
try {
  const [prepared] = await workload.prepare(server, WARMUP + ROUNDS * REQUESTS, 1800);
  await send(server, prepared, WARMUP);
  for (let round = 1; round <= ROUNDS; round++) {
    await new Promise((resolve) => setTimeout(resolve, 300));
    if (engine === 'redis') redisCli('CONFIG', 'RESETSTAT');
    const cpuBefore = engine === 'redis' ? info('cpu') : {};
    const nodeBefore = serverCpuSeconds(server.child.pid);
    await send(server, prepared, REQUESTS);
    const nodeAfter = serverCpuSeconds(server.child.pid);
    const perRequest = (seconds) => ((seconds * 1e6) / REQUESTS).toFixed(1);
    let line = `round ${round} ${id} ${engine}: node server ${perRequest(nodeAfter - nodeBefore)} µs CPU/req`;
    if (engine === 'redis') {
      const cpuAfter = info('cpu');
      const used = (fields) => Number(fields.used_cpu_user) + Number(fields.used_cpu_sys);
      const stats = info('commandstats');
      const rows = Object.entries(stats)
        .map(([key, value]) => {
          const calls = Number(/calls=(\d+)/.exec(value)[1]);
          const usec = Number(/usec=(\d+)/.exec(value)[1]);
          return { command: key.replace('cmdstat_', ''), calls, usec };
        })
        .filter((row) => !['config', 'info'].includes(row.command))
        .sort((a, b) => b.usec - a.usec);
      line += `; redis-server ${perRequest(used(cpuAfter) - used(cpuBefore))} µs CPU/req`;
      console.log(line);
      for (const row of rows)
        console.log(
          `    ${row.command.padEnd(18)} ${(row.calls / REQUESTS).toFixed(2).padStart(6)} calls/req  ${(row.usec / REQUESTS).toFixed(1).padStart(6)} µs/req (commandstats)`,
        );
    } else {
      console.log(line);
    }
  }
} finally {
  server.child.kill('SIGTERM');
  await new Promise((resolve) => server.child.once('exit', resolve));
}
