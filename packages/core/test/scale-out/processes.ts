/**
 * Child processes and a TCP proxy for the scale-out tests of the storage engines.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { connect, createServer, type Server, type Socket } from 'node:net';
import { fileURLToPath } from 'node:url';

const SERVER_SCRIPT = fileURLToPath(new URL('./server.ts', import.meta.url));
const TSCONFIG = fileURLToPath(new URL('./tsconfig.json', import.meta.url));
const REPO_ROOT = fileURLToPath(new URL('../../../../', import.meta.url));

/** A running Gatehouse server process. */
export interface ServerProcess {
  /** `http://127.0.0.1:<port>/demo`. */
  readonly base: string;
  stop(): Promise<void>;
}

/** Starts `server.ts` in a child process with `env` added to ours; resolves once it listens. */
export function startServer(env: Record<string, string>): Promise<ServerProcess> {
  const child = spawn(process.execPath, ['--import', 'tsx', SERVER_SCRIPT], {
    cwd: REPO_ROOT,
    env: { ...process.env, ...env, TSX_TSCONFIG_PATH: TSCONFIG },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stderr = '';
  child.stderr!.on('data', (chunk) => {
    stderr += chunk;
  });
  return new Promise((resolve, reject) => {
    let stdout = '';
    const onExit = (code: number | null) =>
      reject(new Error(`server process exited (${code}) before listening:\n${stderr}`));
    child.once('exit', onExit);
    child.stdout!.on('data', (chunk) => {
      stdout += chunk;
      const line = stdout.split('\n')[0];
      if (stdout.includes('\n') && line) {
        child.off('exit', onExit);
        const { port } = JSON.parse(line) as { port: number };
        resolve({ base: `http://127.0.0.1:${port}/demo`, stop: () => stopChild(child) });
      }
    });
  });
}

function stopChild(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    child.once('exit', () => resolve());
    child.kill('SIGTERM');
  });
}

/** A TCP proxy to `target` that the test can cut (every connection dropped, port closed) and restore. */
export interface TcpProxy {
  readonly port: number;
  cut(): Promise<void>;
  restore(): Promise<void>;
  close(): Promise<void>;
}

/** Opens a proxy on a free loopback port to `host:port`. */
export async function startProxy(target: { host: string; port: number }): Promise<TcpProxy> {
  const sockets = new Set<Socket>();
  const makeServer = () =>
    createServer((client) => {
      const upstream = connect(target.port, target.host);
      for (const socket of [client, upstream]) {
        sockets.add(socket);
        socket.once('close', () => sockets.delete(socket));
        socket.on('error', () => {
          client.destroy();
          upstream.destroy();
        });
      }
      client.pipe(upstream).pipe(client);
    });
  const listen = (server: Server, port: number) =>
    new Promise<number>((resolve, reject) => {
      server.once('error', reject);
      server.listen(port, '127.0.0.1', () => resolve((server.address() as { port: number }).port));
    });
  let server: Server | undefined = makeServer();
  const port = await listen(server, 0);

  const cut = async () => {
    const closing = server;
    server = undefined;
    for (const socket of sockets) socket.destroy();
    if (closing) await new Promise<void>((resolve) => closing.close(() => resolve()));
  };
  return {
    port,
    cut,
    async restore() {
      server = makeServer();
      await listen(server, port);
    },
    close: cut,
  };
}
