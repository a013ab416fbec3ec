/**
 * Test doubles shared by the adapter tests (Express, Koa, Hono, Next): instances that make the
 * translation visible, and a client that hangs up mid-response.
 */
import { request as httpRequest, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { clientAddressOf } from '@gatehouse/core';

/** An instance that answers below /demo/ with what it received, and sets two cookies. */
export const echoInstance = {
  handles: (url: URL | string) => new URL(url).pathname.startsWith('/demo/'),
  async fetch(request: Request) {
    const headers = new Headers();
    headers.append('Set-Cookie', 'one=1; Path=/; HttpOnly');
    headers.append('Set-Cookie', 'two=2; Path=/; HttpOnly');
    return Response.json(
      {
        method: request.method,
        url: request.url,
        address: clientAddressOf(request) ?? null,
        contentType: request.headers.get('content-type'),
        body: await request.text(),
      },
      { headers },
    );
  },
};

/**
 * An instance whose answer never ends, and the promise that both the request's abort signal fired
 * and the response body was cancelled: what a client hang-up must cause.
 */
export function endlessInstance() {
  let aborted: () => void = () => {};
  let cancelled: () => void = () => {};
  const hungUp = Promise.all([
    new Promise<void>((resolve) => {
      aborted = resolve;
    }),
    new Promise<void>((resolve) => {
      cancelled = resolve;
    }),
  ]);
  const instance = {
    handles: () => true,
    async fetch(request: Request) {
      request.signal.addEventListener('abort', () => aborted());
      const body = new ReadableStream<Uint8Array>({
        pull(controller) {
          controller.enqueue(new Uint8Array(16 * 1024));
        },
        cancel() {
          cancelled();
        },
      });
      return new Response(body);
    },
  };
  return { instance, hungUp };
}

/** GETs `url` and destroys the connection as soon as the first chunk of the body arrives. */
export function hangUpAfterFirstChunk(url: string): void {
  const target = new URL(url);
  const req = httpRequest({ host: target.hostname, port: target.port, path: target.pathname });
  req.on('response', (res) => res.once('data', () => req.destroy()));
  req.on('error', () => {});
  req.end();
}

/** Node servers started by a test file, closed after each test. */
export function serverRegistry() {
  const servers: Server[] = [];
  return {
    /** Waits for `server` to listen (on a free loopback port) and returns its base URL. */
    async track(server: Server): Promise<string> {
      servers.push(server);
      if (!server.listening) await new Promise((resolve) => server.once('listening', resolve));
      return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    },
    async closeAll(): Promise<void> {
      for (const server of servers.splice(0)) {
        server.closeAllConnections();
        await new Promise((resolve) => server.close(resolve));
      }
    },
  };
}
