/**
 * Shared pieces of the HTTP benchmark (bench/run.mjs) and the profiler (bench/profile.mjs): the
 * workloads, the bench server process, one autocannon measurement.
 */
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import autocannon from 'autocannon';

const root = fileURLToPath(new URL('../', import.meta.url));

const CLIENT_BASIC = `Basic ${btoa('demo-client:demo-secret')}`;
const USER_BASIC = `Basic ${btoa('demo:demo-password')}`;
const FORM = 'application/x-www-form-urlencoded';

/** The workloads. `prepare` returns autocannon `requests` for `budget` requests at most. */
export const WORKLOADS = [
  {
    id: 'W0',
    name: 'unprotected route (ceiling)',
    prepare: async () => [{ method: 'GET', path: '/bench/ping' }],
  },
  {
    id: 'W1',
    name: 'bearer-protected route (requireAuth, JWT)',
    prepare: async (server) => {
      const [token] = await server.mint('access', 1);
      return [{ method: 'GET', path: '/bench/api', headers: { authorization: `Bearer ${token}` } }];
    },
  },
  {
    id: 'W2',
    name: 'token endpoint, refresh grant (rotation)',
    fresh: true,
    prepare: async (server, budget) => {
      const tokens = await server.mint('refresh', budget);
      return distinctBodies(
        '/demo/oauth2/v1/token',
        tokens,
        (t) => `grant_type=refresh_token&refresh_token=${t}`,
      );
    },
  },
  {
    id: 'W3',
    name: 'token endpoint, authorization_code + PKCE',
    fresh: true,
    prepare: async (server, budget) => {
      const codes = await server.mint('code', budget);
      const redirect = encodeURIComponent(server.redirectUri);
      return distinctBodies(
        '/demo/oauth2/v1/token',
        codes,
        (c) =>
          `grant_type=authorization_code&code=${c}&redirect_uri=${redirect}&code_verifier=${server.verifier}`,
      );
    },
  },
  {
    id: 'W4',
    name: 'introspection of a valid access token',
    prepare: async (server) => {
      const [token] = await server.mint('access', 1);
      return [
        {
          method: 'POST',
          path: '/demo/oauth2/v1/introspect',
          headers: { authorization: CLIENT_BASIC, 'content-type': FORM },
          body: `token=${token}`,
        },
      ];
    },
  },
  {
    id: 'W5',
    name: 'Auth API password login (PBKDF2-SHA256, 100,000 iterations)',
    prepare: async () => [
      { method: 'POST', path: '/demo/auth/v1/token', headers: { authorization: USER_BASIC } },
    ],
  },
];

/** One request per credential, each credential used once: a shared cursor across connections. */
function distinctBodies(path, credentials, body) {
  const bodies = credentials.map(body);
  let next = 0;
  return [
    {
      method: 'POST',
      path,
      headers: { authorization: CLIENT_BASIC, 'content-type': FORM },
      setupRequest: (request) => ({ ...request, body: bodies[Math.min(next++, bodies.length - 1)] }),
    },
  ];
}

/** Starts bench/server.mjs for an adapter and returns a handle once it listens. */
export function startServer(adapter, nodeOptions = []) {
  const child = spawn(
    process.execPath,
    [...nodeOptions, '--import', 'tsx', 'bench/server.mjs', '--adapter', adapter],
    {
      cwd: root,
      stdio: ['ignore', 'pipe', 'inherit'],
    },
  );
  return new Promise((resolve, reject) => {
    let output = '';
    child.once('exit', (code) => reject(new Error(`${adapter} server exited with ${code}: ${output}`)));
    child.stdout.on('data', (chunk) => {
      output += chunk;
      const match = /LISTENING (\d+)/.exec(output);
      if (!match) return;
      child.stdout.removeAllListeners('data');
      child.stdout.resume();
      const url = `http://127.0.0.1:${match[1]}`;
      const server = {
        adapter,
        url,
        child,
        redirectUri: '',
        verifier: '',
        async mint(kind, count) {
          const response = await fetch(`${url}/bench/mint?kind=${kind}&count=${count}`, { method: 'POST' });
          if (!response.ok)
            throw new Error(`mint ${kind} failed: ${response.status} ${await response.text()}`);
          const answer = await response.json();
          server.redirectUri = answer.redirectUri;
          server.verifier = answer.verifier;
          return answer.tokens;
        },
      };
      resolve(server);
    });
  });
}

/** Runs autocannon for one workload on one server. */
export async function measure(server, workload, seconds, ceilingRps, connections = 32) {
  // Fresh credentials: twice the rate this workload reached last time on this server (first time:
  // the framework's own ceiling). Unused ones stay in the server's memory, and a needlessly large
  // heap would slow every later run (GC), so the budget is not simply huge. Running out shows up
  // as failed requests, and the run as INVALID.
  const last = server.lastRps?.[workload.id];
  const rate = last ? last * 2 : Math.max(ceilingRps, 2000) * 1.3;
  const budget = workload.fresh ? Math.ceil(Math.max(rate, 1000) * (seconds + 1)) : 1;
  const requests = await workload.prepare(server, budget);
  const result = await autocannon({
    url: server.url,
    connections,
    duration: seconds,
    requests,
    timeout: 10,
  });
  const total = result.requests.total;
  const failed = result.non2xx + result.errors + result.timeouts;
  const run = {
    rps: result.requests.average,
    p50: result.latency.p50,
    p99: result.latency.p99,
    total,
    non2xx: result.non2xx,
    errors: result.errors + result.timeouts,
    invalid: total === 0 || failed / total > 0.01,
  };
  server.lastRps = { ...server.lastRps, [workload.id]: result.requests.average };
  return run;
}
