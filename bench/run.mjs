/**
 * `pnpm bench`: HTTP benchmark of the demo instance on the Express, Hono and Fastify adapters, as
 * issue 46 measured it: two processes per pair, the Gatehouse target (bench/server.mjs: the demo
 * instance, and `GET /bench/api` behind `requireAuth({ schemes: ['bearer'], scope: 'api:read' })`
 * answering `{ ok, sub, scope }`, the instance mounted after that route) and the bare target of
 * the same framework (`--bare`: a fresh app whose `GET /bench/ping` answers `{ ok: true }`, nothing
 * else loaded). W1 reuses one ES256 access token; W2 and W3 spend a fresh refresh token or PKCE
 * code per request (minted through the grant store before the window), `client_secret_basic`, no
 * `openid` (no ID token); W4 introspects W1's token.
 *
 * This process drives them over loopback with autocannon. Every workload gets a warm-up, then
 * BENCH_ROUNDS rounds, interleaved (round 1 of every workload on every adapter, then round 2, …),
 * and the median is reported. Each run is paired with a W0 run of the bare process measured right
 * before or after it (alternating by round), and its ratio is taken to that W0. A run with more
 * than 1 % failed requests (non-2xx, errors, timeouts) is reported INVALID, never hidden.
 *
 * Environment: BENCH_DURATION (s per run, default 5), BENCH_ROUNDS (3), BENCH_WARMUP (s, 1),
 * BENCH_CONNECTIONS (32), BENCH_ADAPTERS (express,hono,fastify; koa on request), BENCH_WORKLOADS
 * (W0,W1,W2,W3,W4; W5, W6, F1, W2o, W3o, W1d, W1h (Hono) on request),
 * BENCH_JSON (a file to write the raw results to), BENCH_SKIP_MICRO (skip the memory and micro
 * benchmarks that run first), BENCH_ENGINES (memory,redis,postgres; default memory: redis needs
 * REDIS_URL, postgres DATABASE_URL; both run with pushed revocations unless BENCH_PUSHED=0). The
 * engines' own CPU time during the run is printed (Linux /proc), since they share the machine.
 */
import { spawn } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import { fileURLToPath } from 'node:url';
import { WORKLOADS as ALL_WORKLOADS, engineCpu, measure, startServer } from './harness.mjs';

const env = (name, fallback) => process.env[name] ?? fallback;
const DURATION = Number(env('BENCH_DURATION', 5));
const ROUNDS = Number(env('BENCH_ROUNDS', 3));
const WARMUP = Number(env('BENCH_WARMUP', 1));
const CONNECTIONS = Number(env('BENCH_CONNECTIONS', 32));
const ADAPTERS = env('BENCH_ADAPTERS', 'express,hono,fastify').split(',');
const SELECTED = env('BENCH_WORKLOADS', 'W0,W1,W2,W3,W4').split(',');
const ENGINES = env('BENCH_ENGINES', 'memory').split(',');
const root = fileURLToPath(new URL('../', import.meta.url));
const WORKLOADS = ALL_WORKLOADS.filter((w) => SELECTED.includes(w.id));
/** Whether `server` has the workload's route (a workload naming `adapters` exists on those only). */
// F2 (`bare`) runs on the bare process only: bench/floor.mjs measures it.
const runsOn = (server, workload) =>
  !workload.bare && (!workload.adapters || workload.adapters.includes(server.adapter.split('+')[0]));

const median = (values) => {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
};

/** Runs a helper script (micro benchmarks, memory) in its own process, streaming its output. */
function runScript(args) {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, args, { cwd: root, stdio: 'inherit' });
    child.once('exit', (code) =>
      code === 0 ? resolve() : reject(new Error(`${args.join(' ')} exited with ${code}`)),
    );
  });
}

async function main() {
  if (!process.env.BENCH_SKIP_MICRO) {
    await runScript(['--expose-gc', 'bench/memory.mjs']);
    await runScript(['--import', 'tsx', 'bench/micro/tokens.bench.mjs']);
    await runScript(['--import', 'tsx', 'bench/micro/storage.bench.mjs']);
    console.log('');
  }
  const servers = [];
  for (const engine of ENGINES)
    for (const adapter of ADAPTERS) servers.push(await startServer(adapter, [], engine));
  // Each framework's bare target, in a process of its own: W0 of every pair.
  const bare = {};
  for (const adapter of ADAPTERS) bare[adapter] = await startServer(adapter, [], 'memory', true);
  const bareOf = (server) => bare[server.adapter.split('+')[0]];
  const engineCpuBefore = engineCpu();
  const stop = () => {
    for (const server of [...servers, ...Object.values(bare)]) server.child.kill('SIGTERM');
  };
  process.once('SIGINT', () => {
    stop();
    process.exit(130);
  });
  const results = {};
  try {
    console.log(
      `warm-up: ${WARMUP} s per workload; then ${ROUNDS} rounds × ${DURATION} s, ${CONNECTIONS} connections\n`,
    );
    const w0 = ALL_WORKLOADS.find((w) => w.id === 'W0');
    for (const server of Object.values(bare)) await measure(server, w0, WARMUP, CONNECTIONS);
    for (const server of servers) {
      for (const workload of WORKLOADS) {
        if (workload === w0 || !runsOn(server, workload)) continue;
        await measure(server, workload, WARMUP, CONNECTIONS);
      }
    }
    // Each workload is measured right next to a W0 run of its own on the framework's bare process
    // (W0 first in odd rounds, second in even ones) and its ratio is taken to that W0: on a VM whose
    // speed drifts by tens of percent within seconds, a W0 measured 20 s earlier in the round made
    // the ratios swing by ±0.2.
    const record = (server, workload, run, round) => {
      results[server.adapter] ??= {};
      results[server.adapter][workload.id] ??= [];
      results[server.adapter][workload.id].push(run);
      console.log(
        `round ${round} ${server.adapter.padEnd(7)} ${workload.id}: ${run.rps.toFixed(0).padStart(6)} req/s` +
          `  p50 ${run.p50} ms  p99 ${run.p99} ms  non-2xx ${run.non2xx}  errors ${run.errors}` +
          (run.ratio === undefined ? '' : `  ×W0 ${run.ratio.toFixed(2)}`) +
          (run.cpuMicrosPerRequest === undefined
            ? ''
            : `  ${run.cpuMicrosPerRequest.toFixed(1)} µs CPU/req` +
              (run.cpuRatio === undefined ? '' : ` (×W0 ${run.cpuRatio.toFixed(3)})`)) +
          (run.instructionsPerRequest === undefined
            ? ''
            : `  ${(run.instructionsPerRequest / 1000).toFixed(1)} k instr/req` +
              (run.instructionRatio === undefined ? '' : ` (×W0 ${run.instructionRatio.toFixed(3)})`)) +
          (run.engineMicrosPerRequest === undefined
            ? ''
            : `  engine ${run.engineMicrosPerRequest.toFixed(1)} µs CPU/req`) +
          (run.invalid ? '  INVALID' : ''),
      );
    };
    for (let round = 1; round <= ROUNDS; round++) {
      for (const server of servers) {
        for (const workload of WORKLOADS) {
          if (workload === w0 || !runsOn(server, workload)) continue;
          let ceilingRun;
          let run;
          if (round % 2 === 1) {
            ceilingRun = await measure(bareOf(server), w0, DURATION, CONNECTIONS);
            run = await measure(server, workload, DURATION, CONNECTIONS);
          } else {
            run = await measure(server, workload, DURATION, CONNECTIONS);
            ceilingRun = await measure(bareOf(server), w0, DURATION, CONNECTIONS);
          }
          ceilingRun.ratio = 1;
          run.ratio = run.rps / ceilingRun.rps;
          // The same ratio in work done: the ceiling's instructions per request over this workload's.
          if (ceilingRun.cpuMicrosPerRequest && run.cpuMicrosPerRequest) {
            ceilingRun.cpuRatio = 1;
            run.cpuRatio = ceilingRun.cpuMicrosPerRequest / run.cpuMicrosPerRequest;
          }
          if (ceilingRun.instructionsPerRequest && run.instructionsPerRequest) {
            ceilingRun.instructionRatio = 1;
            run.instructionRatio = ceilingRun.instructionsPerRequest / run.instructionsPerRequest;
          }
          if (SELECTED.includes('W0')) record(server, w0, ceilingRun, round);
          record(server, workload, run, round);
        }
      }
    }
    // Unused pre-minted credentials (and consumed ones, kept for reuse detection) stay in the
    // servers' memory: show how much, so a pool that grew too large is seen, not guessed.
    for (const server of [...servers, ...Object.values(bare)])
      console.log(`${server.adapter} server RSS at the end: ${serverRss(server)}`);
    const engineCpuAfter = engineCpu();
    for (const [name, seconds] of Object.entries(engineCpuAfter))
      console.log(`${name} CPU during the run: ${(seconds - (engineCpuBefore[name] ?? 0)).toFixed(1)} s`);
  } finally {
    stop();
  }
  report(results);
  // The engine's own CPU per request (redis-server or every postgres process, /proc), per run: on
  // a shared machine it also counts other clients of the same server, so it is an upper bound.
  for (const [adapter, workloads] of Object.entries(results)) {
    for (const [id, runs] of Object.entries(workloads)) {
      const engine = runs.map((r) => r.engineMicrosPerRequest).filter((n) => n !== undefined);
      if (engine.length)
        console.log(
          `${adapter} ${id}: engine CPU ${median(engine).toFixed(1)} µs/req (runs ${engine.map((n) => n.toFixed(0)).join(' / ')})`,
        );
    }
  }
  if (process.env.BENCH_JSON)
    writeFileSync(process.env.BENCH_JSON, JSON.stringify({ machine: machine(), results }, null, 2));
}

/** Resident set size of a server process (Linux /proc), or "unknown". */
function serverRss(server) {
  try {
    const status = readFileSync(`/proc/${server.child.pid}/status`, 'utf8');
    const kb = Number(/VmRSS:\s+(\d+)/.exec(status)?.[1]);
    return `${Math.round(kb / 1024)} MB`;
  } catch {
    return 'unknown';
  }
}

function machine() {
  const cpus = os.cpus();
  return {
    node: process.version,
    cpu: `${cpus[0]?.model ?? 'unknown'} × ${cpus.length}`,
    memory: `${Math.round(os.totalmem() / 2 ** 30)} GiB`,
    os: `${os.type()} ${os.release()}`,
    date: new Date().toISOString(),
  };
}

function report(results) {
  const m = machine();
  console.log(`\nNode ${m.node}, ${m.cpu}, ${m.memory}, ${m.os}, ${m.date}`);
  console.log(
    `${CONNECTIONS} connections, ${WARMUP} s warm-up, ${ROUNDS} rounds × ${DURATION} s, medians; ratio = median of the ratios to the W0 run of the framework's bare process measured next to each run.`,
  );
  console.log(
    "k instr/req: instructions the server process executed per request (perf stat); × W0 (instr) = W0 instructions per request ÷ the workload's, paired the same way (– where perf cannot count). µs CPU/req and × W0 (CPU): the same with the server's CPU time (Linux /proc), for machines where perf cannot count.\n",
  );
  for (const [adapter, byWorkload] of Object.entries(results)) {
    console.log(`### ${adapter}\n`);
    console.log(
      '| workload | req/s | p50 ms | p99 ms | non-2xx | errors | × W0 | × W0 per pair | k instr/req | × W0 (instr) | µs CPU/req | × W0 (CPU) | CPU pairs | |',
    );
    console.log('|---|---:|---:|---:|---:|---:|---:|---|---:|---:|---:|---:|---|---|');
    for (const workload of WORKLOADS) {
      const runs = byWorkload[workload.id];
      if (!runs) continue;
      const ratios = runs.map((r) => r.ratio).filter((r) => r !== undefined);
      const invalid = runs.filter((r) => r.invalid).length;
      const perRound = ratios.map((r) => r.toFixed(2)).join(' / ');
      const counted = runs.map((r) => r.instructionsPerRequest).filter((n) => n !== undefined);
      const instructionRatios = runs.map((r) => r.instructionRatio).filter((r) => r !== undefined);
      const perRequest = counted.length ? (median(counted) / 1000).toFixed(1) : '–';
      const instructionRatio = instructionRatios.length ? median(instructionRatios).toFixed(3) : '–';
      const cpu = runs.map((r) => r.cpuMicrosPerRequest).filter((n) => n !== undefined);
      const cpuRatios = runs.map((r) => r.cpuRatio).filter((r) => r !== undefined);
      const cpuPerRequest = cpu.length ? median(cpu).toFixed(1) : '–';
      const cpuRatio = cpuRatios.length ? median(cpuRatios).toFixed(3) : '–';
      const cpuPairs = workload.id === 'W0' ? '' : cpuRatios.map((r) => r.toFixed(2)).join(' / ');
      console.log(
        `| ${workload.id} ${workload.name} | ${median(runs.map((r) => r.rps)).toFixed(0)} | ` +
          `${median(runs.map((r) => r.p50))} | ${median(runs.map((r) => r.p99))} | ` +
          `${runs.reduce((s, r) => s + r.non2xx, 0)} | ${runs.reduce((s, r) => s + r.errors, 0)} | ` +
          `${ratios.length ? median(ratios).toFixed(2) : '–'} | ${workload.id === 'W0' ? '' : perRound} | ` +
          `${perRequest} | ${instructionRatio} | ${cpuPerRequest} | ${cpuRatio} | ${cpuPairs} | ${invalid ? `INVALID (${invalid}/${runs.length} runs > 1 % failures)` : 'ok'} |`,
      );
    }
    console.log('');
  }
}

await main();
