/**
 * The guarded fetch around its default transport, `runtimeFetch`, against a local server on
 * 127.0.0.1 (loopback allowed, as in development), and around a stub transport for bodies no real
 * server sends on demand. Address refusals are in `ip-address.test.ts`; DNS checks at connection
 * time in `oauth2/registration/metadata-documents.test.ts`.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { OutboundFetch } from '@gatehousejs/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { defaultTransport } from './default-transport.js';
import { guardedFetch, runtimeFetch } from './guarded-fetch.js';

const hits: string[] = [];
const accepts: (string | undefined)[] = [];
const routes: Record<string, (response: ServerResponse) => void> = {
  '/moved': (response) => response.writeHead(302, { Location: '/target' }).end(),
  '/target': (response) => response.writeHead(200).end('{"reached":true}'),
  '/missing': (response) => response.writeHead(404).end('{}'),
};
/** What `/echo` received: method, content type, authorization and body, sent back as JSON. */
const server = createServer((request: IncomingMessage, response: ServerResponse) => {
  hits.push(request.url ?? '');
  accepts.push(request.headers.accept);
  if (request.url === '/echo') {
    let body = '';
    request.on('data', (chunk: Buffer) => (body += chunk.toString()));
    request.on('end', () => {
      const { method, headers } = request;
      const echoed = { method, type: headers['content-type'], authorization: headers.authorization, body };
      response.writeHead(200).end(JSON.stringify(echoed));
    });
    return;
  }
  routes[request.url ?? '']?.(response);
});
let origin = '';
beforeAll(async () => {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

const limits = (transport: OutboundFetch) => ({
  policy: { allowLoopback: true },
  transport,
  maxBytes: 1024,
  timeoutMs: 3000,
  accept: 'application/jwk-set+json, application/json',
});

/** A stub transport answering 200 with `text` streamed, without a `Content-Length`. */
const streaming =
  (text: string): OutboundFetch =>
  async () =>
    new Response(
      new ReadableStream({
        start(controller) {
          controller.enqueue(new TextEncoder().encode(text));
          controller.close();
        },
      }),
    );

describe('guarded fetch', () => {
  it.each([
    ['the runtime fetch', runtimeFetch],
    ['the default transport', defaultTransport().fetch],
  ])('POSTs a form with its header fields through %s', async (_, transport) => {
    const { body } = await guardedFetch(new URL(`${origin}/echo`), {
      ...limits(transport),
      post: { form: new URLSearchParams({ token: 'a b' }), headers: { Authorization: 'Basic eDp5' } },
    });
    expect(JSON.parse(body)).toEqual({
      method: 'POST',
      type: 'application/x-www-form-urlencoded',
      authorization: 'Basic eDp5',
      body: 'token=a+b',
    });
  });

  it('does not follow a redirect with the runtime fetch: the 3xx is refused, its target never reached', async () => {
    await expect(guardedFetch(new URL(`${origin}/moved`), limits(runtimeFetch))).rejects.toMatchObject({
      name: 'OutboundFetchError',
      code: 'ERR_FETCH_REDIRECT',
      message: expect.stringMatching(/redirect/),
    });
    expect(hits).not.toContain('/target');
  });

  it('refuses an answer other than 200, naming its status, and sends the Accept field given', async () => {
    await expect(guardedFetch(new URL(`${origin}/missing`), limits(runtimeFetch))).rejects.toMatchObject({
      code: 'ERR_FETCH_STATUS',
      message: 'it answered HTTP 404 instead of 200',
    });
    expect(accepts.at(-1)).toBe('application/jwk-set+json, application/json');
  });

  it('counts a body streamed without Content-Length against maxBytes, and returns one within it whole', async () => {
    const url = new URL('https://keys.example.com/jwks');
    await expect(guardedFetch(url, limits(streaming('x'.repeat(2000))))).rejects.toMatchObject({
      code: 'ERR_FETCH_TOO_LARGE',
      message: 'its body exceeds 1024 bytes',
    });
    const small = await guardedFetch(url, limits(streaming('{"keys":[]}')));
    expect(small.body).toBe('{"keys":[]}');
  });

  it('refuses a URL the policy refuses before any request, with ERR_FETCH_REFUSED_URL', async () => {
    const before = hits.length;
    await expect(
      guardedFetch(new URL(`${origin}/target`), {
        ...limits(runtimeFetch),
        policy: { allowLoopback: false },
      }),
    ).rejects.toMatchObject({ code: 'ERR_FETCH_REFUSED_URL', message: 'the URL is not https' });
    expect(hits.length).toBe(before);
  });
});
