/**
 * How close the token endpoint is to its floor, per framework: the bare process's W0 (a bare
 * route) and F2 (bench/token-floor.mjs: form, Basic, three SHA-256, an ES256 signature, the JSON
 * answer: the work no token endpoint can skip), next to Gatehouse's W2 (refresh with rotation) and
 * W3 (code + PKCE), memory engine, interleaved rounds (medians), 32 connections as `pnpm bench`.
 *
 *   node bench/floor.mjs [express,fastify,hono] [rounds] [seconds]
 *
 * Prints, per framework, throughput and CPU per request (every thread, user + system) of each, and
 * the ratios: F2 ÷ W0 (the best a token endpoint can do there), W2 ÷ W0 (issue 46's figure) and
 * W2 ÷ F2 (how close Gatehouse is to the floor), in throughput and in CPU.
 */
import { measure, startServer, WORKLOADS } from './harness.mjs';

const [list = 'express,fastify,hono', roundsArg = '3', secondsArg = '5'] = process.argv.slice(2);
const ROUNDS = Number(roundsArg);
const SECONDS = Number(secondsArg);
const byId = (id) => WORKLOADS.find((workload) => workload.id === id);
const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];

const rows = [];
for (const adapter of list.split(',')) {
  const bare = await startServer(adapter, [], 'memory', true);
  const server = await startServer(adapter, [], 'memory');
  const plan = [
    ['W0', bare],
    ['F2', bare],
    ['W2', server],
    ['W3', server],
  ];
  const runs = Object.fromEntries(plan.map(([id]) => [id, []]));
  for (const [id, target] of plan) await measure(target, byId(id), 1);
  for (let round = 1; round <= ROUNDS; round++) {
    // Odd rounds in order, even rounds reversed: drift of the machine weighs on every workload alike.
    const order = round % 2 === 1 ? plan : [...plan].reverse();
    for (const [id, target] of order) {
      const run = await measure(target, byId(id), SECONDS);
      if (run.invalid) throw new Error(`${adapter} ${id}: ${run.non2xx} non-2xx, ${run.errors} errors`);
      runs[id].push(run);
      console.log(
        `round ${round} ${adapter} ${id}: ${run.rps.toFixed(0)} req/s, ${run.cpuMicrosPerRequest?.toFixed(0)} µs CPU/req`,
      );
    }
  }
  for (const target of [bare, server]) target.child.kill('SIGTERM');
  const rps = (id) => median(runs[id].map((run) => run.rps));
  const cpu = (id) => median(runs[id].map((run) => run.cpuMicrosPerRequest));
  rows.push({ adapter, rps, cpu });
}

console.log(
  '\n| framework | W0 req/s (µs CPU) | F2 floor | W2 | W3 | F2 ÷ W0 | W2 ÷ W0 | W3 ÷ W0 | W2 ÷ F2 | W3 ÷ F2 |',
);
console.log('| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |');
for (const { adapter, rps, cpu } of rows) {
  const cell = (id) => `${rps(id).toFixed(0)} (${cpu(id).toFixed(0)} µs)`;
  const ratio = (a, b) => `${(rps(a) / rps(b)).toFixed(2)} (CPU ${(cpu(b) / cpu(a)).toFixed(2)})`;
  console.log(
    `| ${adapter} | ${cell('W0')} | ${cell('F2')} | ${cell('W2')} | ${cell('W3')} | ${ratio('F2', 'W0')} | ` +
      `${ratio('W2', 'W0')} | ${ratio('W3', 'W0')} | ${ratio('W2', 'F2')} | ${ratio('W3', 'F2')} |`,
  );
}
process.exit(0);
