/**
 * Do the engines serialize the processes that share them? The demo host on one engine as one
 * process and as N (bench/server.mjs --processes N: Node's cluster, one port, one namespace, one
 * pair of signing keys), W2 (refresh with rotation) and W3 (code + PKCE) on each, interleaved rounds
 * (medians), 32 connections as `pnpm bench`. Throughput, the server's CPU per request (every
 * process) and the engine's own CPU per request.
 *
 *   node bench/processes.mjs [express] [redis,postgres] [processes] [rounds] [seconds]
 *
 * On a machine of C cores the load generator takes one: N processes can only gain where the one
 * process left a core idle, which is what the CPU columns tell.
 */
import { measure, startServer, WORKLOADS } from './harness.mjs';

const [
  adapter = 'express',
  engines = 'redis,postgres',
  processesArg = '2',
  roundsArg = '3',
  secondsArg = '5',
] = process.argv.slice(2);
const PROCESSES = Number(processesArg);
const ROUNDS = Number(roundsArg);
const SECONDS = Number(secondsArg);
const byId = (id) => WORKLOADS.find((workload) => workload.id === id);
const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
const WORKLOAD_IDS = ['W2', 'W3'];

const rows = [];
for (const engine of engines.split(',')) {
  const single = await startServer(adapter, [], engine);
  const several = await startServer(adapter, [], engine, false, PROCESSES);
  const runs = {};
  for (const server of [single, several]) for (const id of WORKLOAD_IDS) await measure(server, byId(id), 1);
  for (let round = 1; round <= ROUNDS; round++) {
    const order = round % 2 === 1 ? [single, several] : [several, single];
    for (const id of WORKLOAD_IDS) {
      for (const server of order) {
        const run = await measure(server, byId(id), SECONDS);
        if (run.invalid)
          throw new Error(`${server.adapter} ${id}: ${run.non2xx} non-2xx, ${run.errors} errors`);
        const key = `${server.adapter} ${id}`;
        runs[key] ??= [];
        runs[key].push(run);
        console.log(
          `round ${round} ${server.adapter} ${id}: ${run.rps.toFixed(0)} req/s, ` +
            `${run.cpuMicrosPerRequest?.toFixed(0)} µs CPU/req, engine ${run.engineMicrosPerRequest?.toFixed(0)} µs/req`,
        );
      }
    }
  }
  for (const server of [single, several]) server.child.kill('SIGTERM');
  for (const id of WORKLOAD_IDS) {
    const of = (server) => runs[`${server.adapter} ${id}`];
    const m = (server, key) => median(of(server).map((run) => run[key]));
    rows.push(
      `| ${adapter}, ${engine} | ${id} | ${m(single, 'rps').toFixed(0)} | ${m(several, 'rps').toFixed(0)} | ` +
        `${(m(several, 'rps') / m(single, 'rps')).toFixed(2)} | ${m(single, 'cpuMicrosPerRequest').toFixed(0)} → ` +
        `${m(several, 'cpuMicrosPerRequest').toFixed(0)} µs | ${m(single, 'engineMicrosPerRequest')?.toFixed(0)} → ` +
        `${m(several, 'engineMicrosPerRequest')?.toFixed(0)} µs |`,
    );
  }
}
console.log(
  `\n| target | workload | 1 process req/s | ${PROCESSES} processes req/s | ratio | server CPU/req | engine CPU/req |`,
);
console.log('| --- | --- | --- | --- | --- | --- | --- |');
for (const row of rows) console.log(row);
process.exit(0);
