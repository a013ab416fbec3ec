/**
 * Test doubles shared by the adapter tests (Express, Koa, Hono, Fastify, Next): instances that make
 * the translation visible, a client that hangs up mid-response, and one that resets the connection;
 * and the assertions every adapter makes the same way once its app is set up.
 */
import { request as httpRequest, type IncomingHttpHeaders, type Server } from 'node:http';
import { type AddressInfo, connect } from 'node:net';
import { clientAddressOf } from '@gatehousejs/core/adapter';
import { defineOperations, type OperationsHandler } from '@gatehousejs/core/protect';
import { expect } from 'vitest';
import { basic, mintCode, PKCE_VERIFIER, REDIRECT_URI, type TestInstance } from './fixtures';
import { platformRequestProbe } from './platform-request-probe';

export { type PlatformRequestUses, platformRequestProbe } from './platform-request-probe';

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

/** What {@link sendRaw} received. */
export interface RawAnswer {
  readonly status: number;
  readonly headers: IncomingHttpHeaders;
  readonly body: string;
}

/**
 * A request with node:http, for what fetch() will not send: methods it refuses (`TRACE`), a `Host`
 * of one's choosing, targets it would normalise (`/x/../y`).
 */
export function sendRaw(
  base: string,
  method: string,
  path: string,
  headers: Record<string, string> = {},
): Promise<RawAnswer> {
  const url = new URL(base);
  return new Promise((resolve, reject) => {
    const req = httpRequest({ host: url.hostname, port: url.port, method, path, headers }, (res) => {
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

/**
 * An instance that, for each request, reports that it has it (`received`), waits until the
 * request's signal says the client is gone, and only then reads the client address recorded on it
 * (`addressAfterReset`): what the password limiter does when a client resets the connection while
 * its password is being checked.
 */
export function resetProbe() {
  let received: () => void = () => {};
  let read: (address: string | null) => void = () => {};
  const probe = {
    received: new Promise<void>((resolve) => {
      received = resolve;
    }),
    addressAfterReset: new Promise<string | null>((resolve) => {
      read = resolve;
    }),
    instance: {
      handles: (url: URL | string) => new URL(url).pathname.startsWith('/demo/'),
      async fetch(request: Request) {
        received();
        if (!request.signal.aborted) {
          await new Promise((resolve) => request.signal.addEventListener('abort', resolve, { once: true }));
        }
        read(clientAddressOf(request) ?? null);
        return new Response(null, { status: 204 });
      },
    },
  };
  return probe;
}

/**
 * Sends `method path` with `headers` (and `body`) on a raw TCP connection to `base`, and returns a
 * function that resets that connection (TCP RST, as an attacker shedding a request would).
 */
export async function sendResettable(
  base: string,
  method: string,
  path: string,
  headers: Record<string, string> = {},
  body = '',
): Promise<() => void> {
  const target = new URL(base);
  const socket = connect(Number(target.port), target.hostname);
  socket.on('error', () => {});
  await new Promise((resolve) => socket.once('connect', resolve));
  const fields = Object.entries({ Host: target.host, 'Content-Length': String(body.length), ...headers });
  const head = `${method} ${path} HTTP/1.1\r\n${fields.map(([name, value]) => `${name}: ${value}\r\n`).join('')}\r\n`;
  await new Promise((resolve) => socket.write(head + body, resolve));
  return () => socket.resetAndDestroy();
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

/**
 * `TRACE` (a method `new Request()` refuses) on each of `routed` (path, expected `Allow`) is 405
 * `method_not_allowed` with that `Allow`, and on `elsewhere` reaches the host's own answer.
 */
export async function expectTraceRefused(
  base: string,
  routed: readonly (readonly [path: string, allow: string])[],
  elsewhere: { readonly path: string; readonly status: number; readonly body?: string },
): Promise<void> {
  for (const [path, allow] of routed) {
    const answer = await sendRaw(base, 'TRACE', path);
    expect({ path, status: answer.status, allow: answer.headers.allow }).toEqual({
      path,
      status: 405,
      allow,
    });
    expect(JSON.parse(answer.body).error).toBe('method_not_allowed');
  }
  const { path, ...host } = elsewhere;
  expect(await sendRaw(base, 'TRACE', path)).toMatchObject(host);
}

/**
 * Through `sendTokenRequest` (which sends the given init, see {@link tokenRequestInit}, to the
 * instance's token endpoint through the adapter under test): a code of `t` is exchanged (200,
 * `no-store`), and a repeated parameter is still refused (400 `invalid_request`), however the
 * app's body parsers left the body.
 */
export async function expectCodeExchangedAndRepeatRefused(
  t: TestInstance,
  sendTokenRequest: (init: RequestInit) => Promise<Response>,
): Promise<void> {
  const body = new URLSearchParams({
    grant_type: 'authorization_code',
    code: await mintCode(t),
    redirect_uri: REDIRECT_URI,
    code_verifier: PKCE_VERIFIER,
  }).toString();
  const exchange = await sendTokenRequest(tokenRequestInit(body));
  expect(exchange.status).toBe(200);
  expect(exchange.headers.get('cache-control')).toBe('no-store');
  const repeated = await sendTokenRequest(
    tokenRequestInit('grant_type=refresh_token&refresh_token=a&refresh_token=b'),
  );
  expect(repeated.status).toBe(400);
  expect((await repeated.json()).error).toBe('invalid_request');
}

/** A token request's init: POST, a form `body`, `demo-client`'s Basic credentials. */
export function tokenRequestInit(body: string): RequestInit {
  return {
    method: 'POST',
    headers: {
      'Content-Type': 'application/x-www-form-urlencoded',
      Authorization: basic('demo-client', 'demo-secret'),
    },
    body,
  };
}

/**
 * Sends a GET and a small JSON POST to `url` (with `authorization`, if given) and expects the
 * {@link platformRequestProbe} behind it to report a platform `Request` for both.
 */
export async function expectPlatformRequests(url: string, authorization?: string): Promise<void> {
  const auth: Record<string, string> = authorization ? { Authorization: authorization } : {};
  const get = await fetch(url, { headers: { ...auth, 'X-Probe': 'get' } });
  expect(get.status, await get.clone().text()).toBe(200);
  expect(await get.json()).toEqual({
    isRequest: true,
    header: 'get',
    text: '',
    byteLength: 0,
    copied: { method: 'GET', url, text: '' },
    fetched: { method: 'GET', header: 'get', text: '' },
  });
  const body = '{"kept":true}';
  const post = await fetch(url, {
    method: 'POST',
    headers: { ...auth, 'X-Probe': 'post', 'Content-Type': 'application/json' },
    body,
  });
  expect(post.status, await post.clone().text()).toBe(200);
  expect(await post.json()).toEqual({
    isRequest: true,
    header: 'post',
    text: body,
    json: { kept: true },
    byteLength: body.length,
    copied: { method: 'POST', url, text: body },
    fetched: { method: 'POST', header: 'post', text: body },
  });
  const fields = 'a=1&b=two';
  const form = await fetch(url, {
    method: 'PUT',
    headers: { ...auth, 'X-Probe': 'form', 'Content-Type': 'application/x-www-form-urlencoded' },
    body: fields,
  });
  expect(form.status, await form.clone().text()).toBe(200);
  expect(await form.json()).toMatchObject({
    isRequest: true,
    form: { a: '1', b: 'two' },
    copied: { method: 'PUT', url, text: fields },
    fetched: { method: 'PUT', header: 'form', text: fields },
  });
}

/**
 * An operations table of `t` whose `GET`, `POST` and `PUT /api/v1/probe` (bearer) answer with a
 * {@link platformRequestProbe}: drive it with {@link expectPlatformRequests}.
 */
export function probeOperations(t: TestInstance): OperationsHandler {
  const probe = platformRequestProbe();
  const operation = { schemes: ['bearer'] as const, handler: (request: Request) => probe(request) };
  return defineOperations(t.gatehouse, {
    'GET /api/v1/probe': operation,
    'POST /api/v1/probe': operation,
    'PUT /api/v1/probe': operation,
  });
}
