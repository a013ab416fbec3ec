/**
 * Gatehouse application processes (`app-server.ts`, run from the sources with tsx) and a
 * round-robin HTTP balancer in front of them, one port for all: what a deployment of several
 * processes behind a load balancer looks like, on one machine. A process can be killed (`kill -9`)
 * and started again; its heap can be sampled (after a full garbage collection).
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { createServer, request as httpRequest, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import type { ProcessSample } from '../../../examples/express/test/support/demo-server.js';

const APP_SERVER = fileURLToPath(new URL('./app-server.ts', import.meta.url));
const SOURCES = fileURLToPath(new URL('./sources.tsconfig.json', import.meta.url));
const SAMPLER = fileURLToPath(
  new URL('../../../examples/express/test/support/process-sampler.mjs', import.meta.url),
);
const ROOT = fileURLToPath(new URL('../../../', import.meta.url));

/** A running application process. */
export interface AppProcess {
  readonly name: string;
  /** `http://127.0.0.1:<port>`: the process itself, bypassing any balancer. */
  readonly origin: string;
  readonly pid: number;
  /** Heap after a full garbage collection, and CPU time. */
  sample(): Promise<ProcessSample>;
  /** `kill -9`: no shutdown, connections and requests in flight dropped. */
  kill(): Promise<void>;
  /** SIGTERM, and waits for it to exit. */
  stop(): Promise<void>;
  hasExited(): boolean;
  /** What it printed (for failure messages). */
  output(): string;
}

/** Options of {@link startApp}. */
export interface AppOptions {
  /** Added to this process's environment: the engine (`GATEHOUSE_STORE`, …) and `APP_*` settings. */
  readonly env: Readonly<Record<string, string>>;
  readonly name?: string;
  /**
   * The tsconfig whose `paths` say where `@gatehousejs/*` come from. Default: this checkout's
   * sources; the rolling upgrade points it at another release's.
   */
  readonly sources?: string;
  /** Milliseconds to wait for it to listen. Default 60000. */
  readonly readyWithinMs?: number;
}

/** Starts an application process; resolves once it listens (its first line says where). */
export async function startApp(options: AppOptions): Promise<AppProcess> {
  const name = options.name ?? 'app';
  const child: ChildProcess = spawn(
    process.execPath,
    ['--expose-gc', '--import', SAMPLER, '--import', 'tsx', APP_SERVER],
    {
      cwd: ROOT,
      env: {
        ...process.env,
        NODE_ENV: 'production',
        PORT: '0',
        ...options.env,
        TSX_TSCONFIG_PATH: options.sources ?? SOURCES,
      },
      stdio: ['ignore', 'pipe', 'pipe', 'ipc'],
    },
  );
  let output = '';
  let exited = false;
  const exit = new Promise<void>((resolve) =>
    child.once('exit', () => {
      exited = true;
      resolve();
    }),
  );
  child.stderr!.on('data', (chunk: Buffer) => {
    output += chunk;
  });
  const port = await new Promise<number>((resolve, reject) => {
    let stdout = '';
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`${name} did not listen within ${options.readyWithinMs ?? 60_000} ms:\n${output}`));
    }, options.readyWithinMs ?? 60_000);
    void exit.then(() => {
      clearTimeout(timer);
      reject(new Error(`${name} exited before listening:\n${output}`));
    });
    child.stdout!.on('data', (chunk: Buffer) => {
      stdout += chunk;
      output += chunk;
      const newline = stdout.indexOf('\n');
      if (newline === -1) return;
      try {
        const { port } = JSON.parse(stdout.slice(0, newline)) as { port: number };
        clearTimeout(timer);
        resolve(port);
      } catch {
        // Not the first line we wait for (a warning): keep reading.
        stdout = stdout.slice(newline + 1);
      }
    });
  });
  return {
    name,
    origin: `http://127.0.0.1:${port}`,
    pid: child.pid!,
    sample() {
      if (exited) return Promise.reject(new Error(`${name} has exited:\n${output}`));
      return new Promise((resolve, reject) => {
        child.once('message', (message) => resolve(message as ProcessSample));
        child.send!('gatehouse:sample', (error) => error && reject(error));
      });
    },
    async kill() {
      if (!exited) child.kill('SIGKILL');
      await exit;
    },
    async stop() {
      if (!exited) child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), 5000);
      await exit;
      clearTimeout(timer);
    },
    hasExited: () => exited,
    output: () => output,
  };
}

/** What the balancer did. */
export interface BalancerCounts {
  /** Requests answered by a backend. */
  readonly forwarded: number;
  /** Requests sent again to the next backend because one refused the connection (nothing was sent). */
  readonly redirected: number;
  /** Requests answered 503 by the balancer because their backend died with the request in flight. */
  readonly lostInFlight: number;
}

/** A round-robin HTTP balancer on one port. */
export interface Balancer {
  readonly port: number;
  /** `http://127.0.0.1:<port>`: the public origin of the processes behind it. */
  readonly origin: string;
  /** The processes' origins to spread requests over (replaces the list). */
  setBackends(origins: readonly string[]): void;
  counts(): BalancerCounts;
  close(): Promise<void>;
}

/** A request header naming the backend (its origin) a request must go to: session affinity, for tests. */
export const BACKEND_HEADER = 'x-test-backend';

/**
 * Starts a balancer that sends each request to the next backend in turn (a new connection each, so
 * a refused connection means nothing was sent), or to the one its {@link BACKEND_HEADER} names. A backend refusing the connection is skipped for
 * that request (the next one gets it, as HAProxy's `retries` / `option redispatch` do); a backend
 * that dies with the request sent gets it answered `503` with `Retry-After: 1`, since its effect is
 * unknown: the same answer Gatehouse gives for a storage call that timed out.
 */
export async function startBalancer(): Promise<Balancer> {
  let backends: readonly string[] = [];
  let next = 0;
  const counts = { forwarded: 0, redirected: 0, lostInFlight: 0 };

  const forward = (req: IncomingMessage, res: ServerResponse, body: Buffer, tries: number) => {
    const pinned = req.headers[BACKEND_HEADER];
    if (backends.length === 0 || tries >= (pinned ? 1 : backends.length)) {
      res.writeHead(503, { 'Retry-After': '1', 'Content-Type': 'text/plain' }).end('no backend');
      return;
    }
    const backend = new URL(typeof pinned === 'string' ? pinned : backends[next++ % backends.length]!);
    let sent = false;
    const upstream = httpRequest(
      {
        host: backend.hostname,
        port: backend.port,
        method: req.method,
        path: req.url,
        headers: req.headers,
        agent: false,
      },
      (answer) => {
        counts.forwarded++;
        res.writeHead(answer.statusCode ?? 502, answer.rawHeaders);
        answer.pipe(res);
        answer.once('error', () => res.destroy());
      },
    );
    upstream.once('socket', (socket) => socket.once('connect', () => (sent = true)));
    upstream.once('error', () => {
      if (res.headersSent) return res.destroy();
      if (!sent) {
        counts.redirected++;
        forward(req, res, body, tries + 1);
        return;
      }
      counts.lostInFlight++;
      res.writeHead(503, { 'Retry-After': '1', 'Content-Type': 'text/plain' }).end('backend lost');
    });
    upstream.end(body);
  };

  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.once('end', () => forward(req, res, Buffer.concat(chunks), 0));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    port,
    origin: `http://127.0.0.1:${port}`,
    setBackends(origins) {
      backends = [...origins];
    },
    counts: () => ({ ...counts }),
    async close() {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}

/** A process of a {@link Fleet}: its name and where its `@gatehousejs/*` come from. */
export interface FleetMember {
  readonly name: string;
  /** See {@link AppOptions.sources}. */
  readonly sources?: string;
}

/** Several application processes behind one balancer, sharing one engine. */
export interface Fleet {
  readonly balancer: Balancer;
  /** The balancer's origin: the issuer is `{origin}/app`. */
  readonly origin: string;
  /** The processes, by member (a killed one stays in its place until restarted). */
  readonly apps: readonly AppProcess[];
  /** The own origins of the processes that are running. */
  liveOrigins(): string[];
  /**
   * `kill -9` of one process. The balancer is not told (as a load balancer between two health
   * checks): a request it sends there finds the port closed and goes to the next process.
   */
  kill(index: number): Promise<void>;
  /** Starts a killed process again and puts it back behind the balancer. */
  restart(index: number): Promise<void>;
  /** Each running process's heap after a full garbage collection, bytes. */
  heaps(): Promise<number[]>;
  stop(): Promise<void>;
}

/**
 * Starts `members` (or that many processes) with `env`, behind a new balancer whose origin is
 * their public origin (`PUBLIC_ORIGIN`): the first alone, then the others together (each runs the
 * engine's migrations at start).
 */
export async function startFleet(
  env: Readonly<Record<string, string>>,
  members: number | readonly FleetMember[],
): Promise<Fleet> {
  const balancer = await startBalancer();
  const list: readonly FleetMember[] =
    typeof members === 'number'
      ? Array.from({ length: members }, (_, index) => ({ name: `app-${index + 1}` }))
      : members;
  const start = (member: FleetMember) =>
    startApp({ env: { ...env, PUBLIC_ORIGIN: balancer.origin }, name: member.name, sources: member.sources });
  const apps: AppProcess[] = [];
  const publish = () => balancer.setBackends(apps.filter((app) => !app.hasExited()).map((app) => app.origin));
  try {
    // The first alone (it creates the schema), then the others at once (their migrations find it done).
    apps.push(await start(list[0]!));
    const others = await Promise.allSettled(list.slice(1).map(start));
    for (const other of others) if (other.status === 'fulfilled') apps.push(other.value);
    const failed = others.find((other) => other.status === 'rejected');
    if (failed) throw failed.reason;
    publish();
  } catch (error) {
    await Promise.all(apps.map((app) => app.stop()));
    await balancer.close();
    throw error;
  }
  return {
    balancer,
    origin: balancer.origin,
    apps,
    liveOrigins: () => apps.filter((app) => !app.hasExited()).map((app) => app.origin),
    async kill(index) {
      await apps[index]!.kill();
    },
    async restart(index) {
      apps[index] = await start(list[index]!);
      publish();
    },
    async heaps() {
      const live = apps.filter((app) => !app.hasExited());
      return Promise.all(live.map(async (app) => (await app.sample()).heapUsedBytes));
    },
    async stop() {
      await Promise.all(apps.map((app) => app.stop()));
      await balancer.close();
    },
  };
}
