import { createHash, randomBytes } from 'node:crypto';
import {
  createServer,
  request as httpRequest,
  type IncomingMessage,
  type Server,
  type ServerResponse,
} from 'node:http';
import type { AddressInfo } from 'node:net';
import { clientAddressOf } from '@gatehouse/core';
import {
  encodePreParsedBody,
  sendWebResponse,
  type ToWebRequestOptions,
  toWebRequest,
} from '@gatehouse/core/node';
import { afterEach, describe, expect, it } from 'vitest';
import { ISSUER, testInstance } from '../../test/fixtures';

type App = (request: Request, req: IncomingMessage) => Promise<Response> | Response;

const servers: Server[] = [];
afterEach(async () => {
  for (const server of servers.splice(0)) {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  }
});

/** A plain node:http server over the bridge, on a free loopback port. */
async function serve(
  app: App,
  options: (req: IncomingMessage, res: ServerResponse) => ToWebRequestOptions = (_req, res) => ({
    response: res,
  }),
): Promise<string> {
  const server = createServer(async (req, res) => {
    const request = toWebRequest(req, options(req, res));
    await sendWebResponse(res, await app(request, req));
  });
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

/** A raw request with node:http, for what fetch cannot do (HEAD bodies, odd targets, hanging up). */
function raw(base: string, method: string, path: string, headers: Record<string, string> = {}) {
  const url = new URL(base);
  return httpRequest({ host: url.hostname, port: url.port, method, path, headers });
}

const sha256 = (bytes: Uint8Array) => createHash('sha256').update(bytes).digest('hex');

describe('toWebRequest', () => {
  it('streams a large request body byte for byte', async () => {
    const body = randomBytes(8 * 1024 * 1024);
    const base = await serve(async (request) => {
      const bytes = new Uint8Array(await request.arrayBuffer());
      return Response.json({ length: bytes.byteLength, sha256: sha256(bytes) });
    });
    const response = await fetch(base + '/upload', { method: 'POST', body });
    expect(await response.json()).toEqual({ length: body.byteLength, sha256: sha256(body) });
  });

  it('hands the body over before the client has finished sending it (no buffering)', async () => {
    let firstChunkSeen: () => void = () => {};
    const seen = new Promise<void>((resolve) => {
      firstChunkSeen = resolve;
    });
    const base = await serve(async (request) => {
      const reader = request.body!.getReader();
      let total = 0;
      for (;;) {
        const { done, value } = await reader.read();
        if (done) break;
        total += value.byteLength;
        firstChunkSeen();
      }
      return new Response(String(total));
    });
    const req = raw(base, 'POST', '/stream', { 'Transfer-Encoding': 'chunked' });
    const answer = new Promise<string>((resolve, reject) => {
      req.on('response', (res) => {
        let text = '';
        res.on('data', (chunk) => {
          text += chunk;
        });
        res.on('end', () => resolve(text));
      });
      req.on('error', reject);
    });
    req.write('first chunk;');
    // Only once the handler has read the first chunk does the client send the rest: a bridge that
    // buffered the whole body would never get here.
    await seen;
    req.end('the rest');
    expect(await answer).toBe(String('first chunk;the rest'.length));
  });

  it('gives a POST without a body a null body, and one with Content-Length: 0 an empty one', async () => {
    const base = await serve(async (request) =>
      Response.json({ hasBody: request.body !== null, text: await request.text() }),
    );
    const none = await new Promise<string>((resolve) => {
      raw(base, 'POST', '/')
        .on('response', (res) => {
          let text = '';
          res.on('data', (c) => {
            text += c;
          });
          res.on('end', () => resolve(text));
        })
        .end();
    });
    expect(JSON.parse(none)).toEqual({ hasBody: false, text: '' });
    const empty = await fetch(base + '/', { method: 'POST', body: '' });
    expect(await empty.json()).toEqual({ hasBody: false, text: '' });
  });

  it('puts the mount path back and keeps repeated headers', async () => {
    const base = await serve(
      (request) =>
        Response.json({
          url: request.url,
          accept: request.headers.get('x-multi'),
          cookie: request.headers.get('cookie'),
        }),
      (_req, res) => ({ origin: 'https://public.example', mountPath: '/demo/', response: res }),
    );
    const req = raw(base, 'GET', '/oauth2/v1/token?x=1', { Cookie: 'a=1' });
    req.setHeader('X-Multi', ['one', 'two']);
    const body = await new Promise<string>((resolve) => {
      req.on('response', (res) => {
        let text = '';
        res.on('data', (c) => {
          text += c;
        });
        res.on('end', () => resolve(text));
      });
      req.end();
    });
    expect(JSON.parse(body)).toEqual({
      url: 'https://public.example/demo/oauth2/v1/token?x=1',
      accept: 'one, two',
      cookie: 'a=1',
    });
  });

  it('treats a target starting with // as a path, never as another host', async () => {
    const base = await serve((request) => new Response(request.url));
    const text = await new Promise<string>((resolve) => {
      raw(base, 'GET', '//evil.example/x', { Host: 'localhost:3000' })
        .on('response', (res) => {
          let t = '';
          res.on('data', (c) => {
            t += c;
          });
          res.on('end', () => resolve(t));
        })
        .end();
    });
    expect(text).toBe('http://localhost:3000//evil.example/x');
  });

  it('attaches the socket address as the client address, or the one the adapter passes', async () => {
    const socket = await serve((request) => new Response(String(clientAddressOf(request))));
    expect(await (await fetch(socket)).text()).toBe('127.0.0.1');
    const given = await serve(
      (request) => new Response(String(clientAddressOf(request))),
      (_req, res) => ({ clientAddress: '203.0.113.7', response: res }),
    );
    // A spoofed forwarding header changes nothing: only the adapter decides.
    expect(await (await fetch(given, { headers: { 'X-Forwarded-For': '198.51.100.1' } })).text()).toBe(
      '203.0.113.7',
    );
  });

  it('re-encodes a body a parser already consumed, with a matching Content-Length', async () => {
    const server = createServer(async (req, res) => {
      const chunks: Buffer[] = [];
      for await (const chunk of req) chunks.push(chunk as Buffer);
      const parsed = Object.fromEntries(new URLSearchParams(Buffer.concat(chunks).toString()));
      const request = toWebRequest(req, { body: { value: parsed }, response: res });
      const text = await request.text();
      await sendWebResponse(res, Response.json({ text, length: request.headers.get('content-length') }));
    });
    servers.push(server);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    const response = await fetch(base, {
      method: 'POST',
      headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
      body: 'grant_type=refresh_token&refresh_token=a%2Bb+c',
    });
    const expected = 'grant_type=refresh_token&refresh_token=a%2Bb+c';
    expect(await response.json()).toEqual({ text: expected, length: String(expected.length) });
  });

  it('gives an empty body, not a stream that never ends, when the body was consumed and nothing kept', async () => {
    const server = createServer(async (req, res) => {
      for await (const _chunk of req) {
        // A middleware read the body and kept nothing.
      }
      const request = toWebRequest(req, { response: res });
      await sendWebResponse(
        res,
        Response.json({ text: await request.text(), length: request.headers.get('content-length') }),
      );
    });
    servers.push(server);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const response = await fetch(`http://127.0.0.1:${(server.address() as AddressInfo).port}`, {
      method: 'POST',
      body: 'a=1',
    });
    expect(await response.json()).toEqual({ text: '', length: '0' });
  });

  it('aborts the request signal when the client hangs up before the answer is complete', async () => {
    let aborted: () => void = () => {};
    const abortSeen = new Promise<void>((resolve) => {
      aborted = resolve;
    });
    let cancelled: () => void = () => {};
    const cancelSeen = new Promise<void>((resolve) => {
      cancelled = resolve;
    });
    const base = await serve((request) => {
      request.signal.addEventListener('abort', () => aborted());
      // An endless body: only a client hang-up ends it.
      const body = new ReadableStream<Uint8Array>({
        pull(controller) {
          controller.enqueue(new Uint8Array(16 * 1024));
        },
        cancel() {
          cancelled();
        },
      });
      return new Response(body);
    });
    const req = raw(base, 'GET', '/endless');
    req.on('response', (res) => {
      res.once('data', () => req.destroy());
    });
    req.on('error', () => {});
    req.end();
    await Promise.all([abortSeen, cancelSeen]);
  });
});

describe('sendWebResponse', () => {
  it('sends every Set-Cookie as its own header', async () => {
    const base = await serve(() => {
      const headers = new Headers({ 'Content-Type': 'text/plain' });
      headers.append('Set-Cookie', 'a=1; Path=/; HttpOnly');
      headers.append('Set-Cookie', 'b=2; Path=/; Expires=Thu, 01 Jan 2026 00:00:00 GMT');
      return new Response('ok', { status: 201, headers });
    });
    const response = await fetch(base);
    expect(response.status).toBe(201);
    expect(response.headers.getSetCookie()).toEqual([
      'a=1; Path=/; HttpOnly',
      'b=2; Path=/; Expires=Thu, 01 Jan 2026 00:00:00 GMT',
    ]);
  });

  it('sends the headers but no body for HEAD', async () => {
    const base = await serve(() => new Response('a body', { headers: { 'X-Probe': 'yes' } }));
    const { status, probe, body } = await new Promise<{ status?: number; probe: unknown; body: string }>(
      (resolve) => {
        raw(base, 'HEAD', '/')
          .on('response', (res) => {
            let text = '';
            res.on('data', (c) => {
              text += c;
            });
            res.on('end', () =>
              resolve({ status: res.statusCode, probe: res.headers['x-probe'], body: text }),
            );
          })
          .end();
      },
    );
    expect({ status, probe, body }).toEqual({ status: 200, probe: 'yes', body: '' });
  });

  it('streams a large response body intact', async () => {
    const payload = randomBytes(6 * 1024 * 1024);
    const base = await serve(() => new Response(payload));
    const received = new Uint8Array(await (await fetch(base)).arrayBuffer());
    expect(sha256(received)).toBe(sha256(payload));
  });
});

describe('the bridge in front of a Gatehouse instance', () => {
  it('delivers the 413 for an oversized body instead of dropping the connection', async () => {
    const t = await testInstance({ maxBodyBytes: 1024 });
    const base = await serve(
      (request) => t.gatehouse.fetch(request),
      (_req, res) => ({ origin: new URL(ISSUER).origin, response: res }),
    );
    const response = await fetch(base + '/demo/oauth2/v1/token', {
      method: 'POST',
      headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
      // Streamed without a Content-Length, so the limit is hit while reading.
      body: new ReadableStream({
        start(controller) {
          controller.enqueue(
            new TextEncoder().encode(`grant_type=refresh_token&refresh_token=${'x'.repeat(64 * 1024)}`),
          );
          controller.close();
        },
      }),
      duplex: 'half',
    } as RequestInit);
    expect(response.status).toBe(413);
    expect(await response.json()).toMatchObject({ error: 'invalid_request' });
  });
});

describe('encodePreParsedBody', () => {
  const text = (bytes: Uint8Array) => new TextDecoder().decode(bytes);
  const FORM = 'application/x-www-form-urlencoded; charset=utf-8';

  it('prefers the raw bytes the parser kept', () => {
    expect(text(encodePreParsedBody({ value: { a: 'changed' }, raw: 'a=%7Eoriginal' }, FORM))).toBe(
      'a=%7Eoriginal',
    );
    expect(text(encodePreParsedBody({ value: {}, raw: new TextEncoder().encode('x=1') }, FORM))).toBe('x=1');
  });

  it('keeps repeated form parameters repeated, so duplicates are still detected', () => {
    const encoded = text(
      encodePreParsedBody({ value: { grant_type: 'authorization_code', code: ['a', 'b'] } }, FORM),
    );
    expect([...new URLSearchParams(encoded)]).toEqual([
      ['grant_type', 'authorization_code'],
      ['code', 'a'],
      ['code', 'b'],
    ]);
  });

  it('keeps names and values that need escaping', () => {
    const value = { 'na me': 'a+b c&d=é', empty: '' };
    const encoded = text(encodePreParsedBody({ value }, FORM));
    expect(Object.fromEntries(new URLSearchParams(encoded))).toEqual(value);
  });

  it('writes nested objects of extended parsers in bracket notation', () => {
    expect(decodeURIComponent(text(encodePreParsedBody({ value: { a: { b: 'c' } } }, FORM)))).toBe('a[b]=c');
  });

  it('serialises JSON bodies, and passes bytes and text through', () => {
    expect(text(encodePreParsedBody({ value: { limit: 5 } }, 'application/json'))).toBe('{"limit":5}');
    expect(text(encodePreParsedBody({ value: { limit: 5 } }, 'application/problem+json'))).toBe(
      '{"limit":5}',
    );
    expect(text(encodePreParsedBody({ value: Buffer.from('raw') }, 'application/octet-stream'))).toBe('raw');
    expect(text(encodePreParsedBody({ value: 'plain' }, 'text/plain'))).toBe('plain');
  });

  it('gives an empty body for what cannot be rebuilt', () => {
    expect(encodePreParsedBody({ value: { file: {} } }, 'multipart/form-data; boundary=x').byteLength).toBe(
      0,
    );
    expect(encodePreParsedBody({ value: undefined }, FORM).byteLength).toBe(0);
  });
});
