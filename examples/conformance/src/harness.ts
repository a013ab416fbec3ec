/**
 * Starts a target server as its own process on a free loopback port and stops it again; plus a
 * tiny cookie-keeping HTTP client that behaves like a browser where the suite needs one.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { request as httpRequest, type IncomingHttpHeaders } from 'node:http';
import { createServer } from 'node:net';
import type { Target } from './targets.js';

/** An extra origin the servers allow for CORS with credentials (`GATEHOUSE_ALLOWED_ORIGINS`). */
export const ALLOWED_ORIGIN = 'http://app.conformance.test';

/** A running target. */
export interface RunningTarget {
  /** `http://localhost:<port>`: the issuer's origin. */
  readonly origin: string;
  /** `{origin}/demo`. */
  readonly issuer: string;
  /** Stops the server (SIGTERM to its process group; SIGKILL if it lingers). */
  stop(): Promise<void>;
  /** What the server has printed so far (stdout and stderr). */
  output(): string;
}

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

/** Starts `target` and resolves once its metadata document answers 200. */
export async function startTarget(target: Target, readyWithinMs = 90_000): Promise<RunningTarget> {
  const port = await freePort();
  const origin = `http://localhost:${port}`;
  const [command, ...args] = target.command;
  const child = spawn(command, args, {
    cwd: target.cwd,
    env: {
      ...process.env,
      PORT: String(port),
      HOST: '127.0.0.1',
      NODE_ENV: 'production',
      NEXT_TELEMETRY_DISABLED: '1',
      GATEHOUSE_ALLOWED_ORIGINS: ALLOWED_ORIGIN,
      GATEHOUSE_STORE: 'memory',
      ...target.env,
    },
    // Its own process group, so stopping it also stops what it spawned (tsx runs node as a child).
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout?.on('data', (chunk) => {
    output += chunk;
  });
  child.stderr?.on('data', (chunk) => {
    output += chunk;
  });
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  const stop = () => stopProcess(child, exited);

  const deadline = Date.now() + readyWithinMs;
  let early: number | null | undefined;
  void exited.then((code) => {
    early = code;
  });
  for (;;) {
    if (early !== undefined)
      throw new Error(`${target.name} exited with ${early} before it was ready:\n${output}`);
    try {
      const response = await fetch(
        origin + (target.readyPath ?? '/demo/.well-known/oauth-authorization-server'),
      );
      if (response.status === 200) break;
    } catch {
      // Not listening yet.
    }
    if (Date.now() > deadline) {
      await stop();
      throw new Error(`${target.name} was not ready within ${readyWithinMs} ms:\n${output}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return { origin, issuer: `${origin}/demo`, stop, output: () => output };
}

async function stopProcess(child: ChildProcess, exited: Promise<unknown>): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null || child.pid === undefined) return;
  const group = -child.pid;
  try {
    process.kill(group, 'SIGTERM');
  } catch {
    return;
  }
  const timer = setTimeout(() => {
    try {
      process.kill(group, 'SIGKILL');
    } catch {}
  }, 5000);
  await exited;
  clearTimeout(timer);
}

/** A cookie as the server set it: its value and the attributes, for assertions. */
export interface StoredCookie {
  readonly value: string;
  readonly header: string;
}

/**
 * A fetch that keeps cookies like a browser (host-only, no expiry bookkeeping beyond deletion) and
 * never follows redirects, so every hop can be checked.
 */
export class CookieClient {
  readonly cookies = new Map<string, StoredCookie>();

  async fetch(url: string, init: RequestInit = {}): Promise<Response> {
    const headers = new Headers(init.headers);
    if (this.cookies.size > 0 && !headers.has('cookie')) {
      headers.set('cookie', [...this.cookies].map(([name, { value }]) => `${name}=${value}`).join('; '));
    }
    const response = await fetch(url, { ...init, headers, redirect: 'manual' });
    for (const header of response.headers.getSetCookie()) {
      const [pair = ''] = header.split(';');
      const index = pair.indexOf('=');
      const name = pair.slice(0, index).trim();
      const value = pair.slice(index + 1).trim();
      const expired =
        /;\s*max-age=0/i.test(header) || /;\s*expires=Thu, 01 Jan 1970/i.test(header) || value === '';
      if (expired) this.cookies.delete(name);
      else this.cookies.set(name, { value, header });
    }
    return response;
  }

  /** The `Cookie` header value for just the named cookie. */
  only(name: string): string {
    const cookie = this.cookies.get(name);
    if (!cookie) throw new Error(`no cookie ${name}; have ${[...this.cookies.keys()].join(', ')}`);
    return `${name}=${cookie.value}`;
  }
}

/** A request fetch() will not send (`TRACE`), with node:http: its status, headers and body. */
export function rawRequest(
  url: string,
  method: string,
): Promise<{ status: number; headers: IncomingHttpHeaders; body: string }> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(url, { method }, (res) => {
      let body = '';
      res.on('data', (chunk) => {
        body += chunk;
      });
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }));
    });
    req.on('error', reject);
    req.end();
  });
}
