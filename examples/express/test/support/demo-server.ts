/**
 * Runs the Express example server (`src/server.ts`, what `pnpm start` runs after building) as a
 * child process on a free port, for end-to-end tests.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { createServer } from 'node:net';
import { fileURLToPath } from 'node:url';

/** The server process's heap (after a full garbage collection) and CPU time, at one moment. */
export interface ProcessSample {
  readonly heapUsedBytes: number;
  /** User plus system CPU time since the process started. */
  readonly cpuMs: number;
}

/** Process options of {@link startDemoServer}. */
export interface DemoServerOptions {
  /** Extra Node.js options of the server process, e.g. `--max-old-space-size=512`. */
  readonly nodeOptions?: readonly string[];
  /** Lets {@link DemoServer.sample} measure the process (runs it with `--expose-gc` and an IPC channel). */
  readonly sampled?: boolean;
}

/** A running example server. */
export interface DemoServer {
  /** `http://localhost:<port>`: the origin of the issuer and of the callback. */
  readonly origin: string;
  /** `http://localhost:<port>/demo`. */
  readonly issuer: string;
  readonly port: number;
  /** Output so far (for failure messages). */
  output(): string;
  /** Heap and CPU time of the server process (only when started with `sampled`). */
  sample(): Promise<ProcessSample>;
  /** Stops the server and waits for it to exit. */
  stop(): Promise<void>;
}

const exampleDir = fileURLToPath(new URL('../..', import.meta.url));

/** A port that was free a moment ago (the issuer names the port, so port 0 cannot be used). */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const address = probe.address();
      probe.close(() =>
        typeof address === 'object' && address ? resolve(address.port) : reject(new Error('no port')),
      );
    });
  });
}

/** Answers sample requests inside the server process (see `process-sampler.mjs`). */
const sampler = fileURLToPath(new URL('./process-sampler.mjs', import.meta.url));

/** Starts the server and resolves once its metadata endpoint answers 200 (rejects if it exits first). */
export async function startDemoServer(
  env: Record<string, string> = {},
  timeoutMs = 15_000,
  options: DemoServerOptions = {},
): Promise<DemoServer> {
  const port = await freePort();
  const origin = `http://localhost:${port}`;
  const issuer = `${origin}/demo`;
  const nodeArgs = [
    ...(options.nodeOptions ?? []),
    ...(options.sampled ? ['--expose-gc', '--import', sampler] : []),
    '--import',
    'tsx',
    'src/server.ts',
  ];
  const child: ChildProcess = spawn(process.execPath, nodeArgs, {
    cwd: exampleDir,
    env: { ...process.env, ...env, PORT: String(port) },
    stdio: options.sampled ? ['ignore', 'pipe', 'pipe', 'ipc'] : ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  let exited = false;
  child.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const exit = new Promise<void>((resolve) =>
    child.once('exit', () => {
      exited = true;
      resolve();
    }),
  );
  const server: DemoServer = {
    origin,
    issuer,
    port,
    output: () => output,
    sample() {
      if (!child.send) return Promise.reject(new Error('the server was not started with `sampled`'));
      if (exited) return Promise.reject(new Error(`the server has exited:\n${output}`));
      return new Promise((resolve, reject) => {
        child.once('message', (message) => resolve(message as ProcessSample));
        child.send!('gatehouse:sample', (error) => error && reject(error));
      });
    },
    async stop() {
      if (!exited) child.kill('SIGTERM');
      await exit;
    },
  };
  const deadline = Date.now() + timeoutMs;
  while (!exited && Date.now() < deadline) {
    try {
      const response = await fetch(`http://127.0.0.1:${port}/demo/.well-known/oauth-authorization-server`);
      if (response.ok) return server;
    } catch {
      // not listening yet
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  await server.stop();
  throw new Error(`the example server did not start:\n${output}`);
}
