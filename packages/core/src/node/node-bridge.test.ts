import { createHash, randomBytes } from 'node:crypto';
import {
  createServer,
  request as httpRequest,
  IncomingMessage,
  type Server,
  type ServerResponse,
} from 'node:http';
import { type AddressInfo, Socket } from 'node:net';
import { answerOf, clientAddressOf } from '@gatehousejs/core/adapter';
import {
  encodePreParsedBody,
  readGatehouseRequest,
  readWebRequest,
  sendWebResponse,
  type ToWebRequestOptions,
  toGatehouseRequest,
  toWebRequest,
  webRequestUrl,
} from '@gatehousejs/core/node';
import { defineOperations } from '@gatehousejs/core/protect';
import { afterEach, describe, expect, it } from 'vitest';
import {
  expectPlatformRequests,
  platformRequestProbe,
  resetProbe,
  sendRaw,
  sendResettable,
} from '../../test/adapter-kit';
import { ISSUER, issueTokens, testInstance } from '../../test/fixtures';
import {
  bodyShapes,
  expectAnswersBehindResponseWrappers,
  responseWrappers,
} from '../../test/response-wrappers';

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
  build: typeof toWebRequest = toWebRequest,
): Promise<string> {
  const server = createServer(async (req, res) => {
    const request = build(req, options(req, res));
    await sendWebResponse(res, await app(request, req));
  });
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

/** Like {@link serve}, through `readWebRequest` (small bodies read into memory first). */
async function serveRead(app: App): Promise<string> {
  const server = createServer(async (req, res) => {
    const request = await readWebRequest(req, { response: res, maxBufferedBytes: 1024 });
    await sendWebResponse(res, await app(request, req));
  });
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

/** The status, raw header lines and body of a response, read with node:http. */
function exchange(
  base: string,
  method: string,
  path = '/',
): Promise<{ status?: number; headers: string[]; body: string }> {
  return new Promise((resolve, reject) => {
    raw(base, method, path)
      .on('response', (res) => {
        let body = '';
        res.on('data', (chunk) => {
          body += chunk;
        });
        res.on('end', () => resolve({ status: res.statusCode, headers: res.rawHeaders, body }));
      })
      .on('error', reject)
      .end();
  });
}

/** The header lines of `name` (lower case) in a raw header list. */
const linesOf = (rawHeaders: string[], name: string) =>
  rawHeaders.filter((_, i) => i % 2 === 1 && rawHeaders[i - 1]!.toLowerCase() === name);

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

  it('builds a header-only request for Gatehouse (ignoreBody) that works out its URL and client address only when read', async () => {
    const calls = { origin: 0, address: 0 };
    const base = await serve(
      async (request, req) => {
        // What a bearer check reads: headers only. Nothing else has been worked out yet.
        const authorization = request.headers.get('authorization');
        const before = { ...calls };
        const url = request.url;
        const address = clientAddressOf(request);
        // The body is left to the host, unread.
        let body = '';
        for await (const chunk of req) body += chunk;
        return Response.json({ authorization, before, url, address, hasBody: request.body !== null, body });
      },
      () => ({
        ignoreBody: true,
        origin: () => {
          calls.origin++;
          return 'https://public.example';
        },
        mountPath: '/api',
        clientAddress: () => {
          calls.address++;
          return '203.0.113.9';
        },
      }),
      toGatehouseRequest,
    );
    const response = await fetch(`${base}/things?x=1`, {
      method: 'POST',
      headers: { authorization: 'Bearer abc' },
      body: 'kept for the host',
    });
    expect(await response.json()).toEqual({
      authorization: 'Bearer abc',
      before: { origin: 0, address: 0 },
      url: 'https://public.example/api/things?x=1',
      address: '203.0.113.9',
      hasBody: false,
      body: 'kept for the host',
    });
    expect(calls).toEqual({ origin: 1, address: 1 });
  });

  it('keeps the client address of a request whose client resets the connection before it is read', async () => {
    const probe = resetProbe();
    const base = await serve((request) => probe.instance.fetch(request));
    const reset = await sendResettable(base, 'GET', '/demo/x');
    await probe.received;
    reset();
    // The signal says the client is gone, and the address read after that is still the socket's.
    expect(await probe.addressAfterReset).toBe('127.0.0.1');
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

describe('sendWebResponse framing', () => {
  it('sends a body that is complete in one chunk with its exact Content-Length, not chunked', async () => {
    const base = await serve(() => Response.json({ greeting: 'héllo' }));
    const { status, headers, body } = await exchange(base, 'GET');
    expect(status).toBe(200);
    expect(linesOf(headers, 'content-length')).toEqual([String(Buffer.byteLength(body))]);
    expect(linesOf(headers, 'transfer-encoding')).toEqual([]);
    expect(JSON.parse(body)).toEqual({ greeting: 'héllo' });
  });

  it('keeps a Content-Length the response already declares, and sends an empty body as length 0', async () => {
    const declared = await serve(() => new Response('abc', { headers: { 'Content-Length': '3' } }));
    expect(linesOf((await exchange(declared, 'GET')).headers, 'content-length')).toEqual(['3']);
    const empty = await serve(() => new Response(''));
    const answer = await exchange(empty, 'GET');
    expect({ length: linesOf(answer.headers, 'content-length'), body: answer.body }).toEqual({
      length: ['0'],
      body: '',
    });
  });

  it('still streams a body of several chunks, chunked and intact', async () => {
    const parts = ['first;', 'second;', 'third'];
    const base = await serve(() => {
      let i = 0;
      return new Response(
        new ReadableStream<Uint8Array>({
          pull(controller) {
            if (i < parts.length) controller.enqueue(new TextEncoder().encode(parts[i++]));
            else controller.close();
          },
        }),
      );
    });
    const { headers, body } = await exchange(base, 'GET');
    expect(linesOf(headers, 'transfer-encoding')).toEqual(['chunked']);
    expect(linesOf(headers, 'content-length')).toEqual([]);
    expect(body).toBe(parts.join(''));
  });

  it('sends no body and no invented length for 204', async () => {
    const base = await serve(() => new Response(null, { status: 204, headers: { 'X-Probe': 'yes' } }));
    const { status, headers, body } = await exchange(base, 'POST');
    expect({ status, probe: linesOf(headers, 'x-probe'), body }).toEqual({
      status: 204,
      probe: ['yes'],
      body: '',
    });
    expect(linesOf(headers, 'content-length')).toEqual([]);
  });

  it('sends the headers but no body for HEAD of a single-chunk body', async () => {
    const base = await serve(() => Response.json({ a: 1 }));
    const { status, body } = await exchange(base, 'HEAD');
    expect({ status, body }).toEqual({ status: 200, body: '' });
  });

  it('keeps every Set-Cookie and the headers the host set before, the response winning on conflicts', async () => {
    const server = createServer(async (_req, res) => {
      res.setHeader('X-Host', 'kept');
      res.setHeader('Content-Type', 'text/html');
      const headers = new Headers({ 'Content-Type': 'text/plain' });
      headers.append('Set-Cookie', 'a=1; Path=/');
      headers.append('Set-Cookie', 'b=2; Path=/');
      await sendWebResponse(res, new Response('ok', { headers }));
    });
    servers.push(server);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { headers, body } = await exchange(
      `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
      'GET',
    );
    expect({
      cookies: linesOf(headers, 'set-cookie'),
      host: linesOf(headers, 'x-host'),
      type: linesOf(headers, 'content-type'),
      body,
    }).toEqual({ cookies: ['a=1; Path=/', 'b=2; Path=/'], host: ['kept'], type: ['text/plain'], body: 'ok' });
  });
});

describe('readWebRequest', () => {
  it('reads a small body completely before building the request', async () => {
    let built = false;
    const base = await serveRead(async (request) => {
      built = true;
      return new Response(await request.text());
    });
    const req = raw(base, 'POST', '/', { 'content-length': '10', 'content-type': 'text/plain' });
    const answer = new Promise<string>((resolve) => {
      req.on('response', (res) => {
        let text = '';
        res.on('data', (chunk) => {
          text += chunk;
        });
        res.on('end', () => resolve(text));
      });
    });
    // Half the body goes out, and the server sees it (its socket has data), yet builds nothing.
    await new Promise<void>((resolve) => req.write('hello', () => resolve()));
    await new Promise((resolve) => setTimeout(resolve, 50));
    const builtEarly = built;
    req.end('world');
    expect({ builtEarly, echoed: await answer }).toEqual({ builtEarly: false, echoed: 'helloworld' });
  });

  it('streams a body larger than the cap, handing it over before the client has sent it all', async () => {
    let built: () => void = () => {};
    const builtSeen = new Promise<void>((resolve) => {
      built = resolve;
    });
    const base = await serveRead(async (request) => {
      built();
      const bytes = new Uint8Array(await request.arrayBuffer());
      return Response.json({ length: bytes.byteLength, sha256: sha256(bytes) });
    });
    const payload = randomBytes(4096);
    const req = raw(base, 'POST', '/', { 'content-length': String(payload.byteLength) });
    const answer = new Promise<unknown>((resolve) => {
      req.on('response', (res) => {
        let text = '';
        res.on('data', (chunk) => {
          text += chunk;
        });
        res.on('end', () => resolve(JSON.parse(text)));
      });
    });
    req.write(payload.subarray(0, 100));
    await builtSeen; // with only 100 of 4096 bytes sent
    req.end(payload.subarray(100));
    expect(await answer).toEqual({ length: payload.byteLength, sha256: sha256(payload) });
  });

  it('aborts the signal and fails the body when the client hangs up during a buffered read', async () => {
    let seen: (outcome: { aborted: boolean; read: string }) => void = () => {};
    const outcome = new Promise<{ aborted: boolean; read: string }>((resolve) => {
      seen = resolve;
    });
    const server = createServer(async (req) => {
      const request = await readWebRequest(req);
      const read = await request.text().then(
        () => 'read',
        () => 'failed',
      );
      seen({ aborted: request.signal.aborted, read });
    });
    servers.push(server);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const req = raw(`http://127.0.0.1:${(server.address() as AddressInfo).port}`, 'POST', '/', {
      'content-length': '100',
    });
    req.on('error', () => {});
    req.write('only ten b', () => setTimeout(() => req.destroy(), 20));
    expect(await outcome).toEqual({ aborted: true, read: 'failed' });
  });

  it('reads the client address before the body, so a reset during the read cannot drop it', async () => {
    const probe = resetProbe();
    const base = await serveRead((request) => probe.instance.fetch(request));
    const reset = await sendResettable(base, 'POST', '/demo/x', { 'Content-Type': 'text/plain' }, 'abc');
    await probe.received;
    reset();
    expect(await probe.addressAfterReset).toBe('127.0.0.1');
  });

  it('gives the same URL as the request it builds', async () => {
    const base = await serveRead((request, req) =>
      Response.json({ url: request.url, computed: webRequestUrl(req, { mountPath: '/m/' }) }),
    );
    const { url, computed } = await (await fetch(`${base}/a/b?c=d`)).json();
    expect(computed).toBe(`${base}/m/a/b?c=d`);
    expect(url).toBe(`${base}/a/b?c=d`);
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
    expect(await response.json()).toMatchObject({ error: 'payload_too_large' });
  });

  it('delivers the 413 for a declared length over the limit that is small enough to be buffered', async () => {
    const t = await testInstance({ maxBodyBytes: 1024 });
    const server = createServer(async (req, res) => {
      const request = await readWebRequest(req, { origin: new URL(ISSUER).origin, response: res });
      await sendWebResponse(res, await t.gatehouse.fetch(request));
    });
    servers.push(server);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const response = await fetch(
      `http://127.0.0.1:${(server.address() as AddressInfo).port}/demo/oauth2/v1/token`,
      {
        method: 'POST',
        headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
        body: `grant_type=refresh_token&refresh_token=${'x'.repeat(8 * 1024)}`,
      },
    );
    expect(response.status).toBe(413);
    expect(await response.json()).toMatchObject({ error: 'payload_too_large' });
  });
});

describe('sendWebResponse behind the host’s res.write/res.end wrappers', () => {
  it('answers every shape whole through express-session, compression and a hand-written wrapper, resolving once sent', async () => {
    const t = await testInstance();
    const wrappers = responseWrappers();
    const unfinished: string[] = [];
    const server = createServer((req, res) =>
      wrappers.use(req, res, async () => {
        const request = await readGatehouseRequest(req, { response: res });
        const shape = await bodyShapes(request);
        await sendWebResponse(res, shape ?? (await answerOf(t.gatehouse, request)));
        // The hand-written wrapper ends a moment later: a Response's promise waits for it (a
        // Reply's text is handed over whole, and its promise is settled at once).
        if (shape && !res.writableFinished) unfinished.push(`${req.method} ${req.url}`);
      }),
    );
    servers.push(server);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    await expectAnswersBehindResponseWrappers(
      `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
      wrappers.calls,
    );
    expect(unfinished).toEqual([]);
  });
});

describe('methods new Request() refuses', () => {
  /** A Node request as the parser would hand it over, for methods a client cannot send with fetch. */
  function message(method: string, url: string): IncomingMessage {
    const req = new IncomingMessage(new Socket());
    req.method = method;
    req.url = url;
    req.rawHeaders = ['Host', 'localhost:3000'];
    req.headers = { host: 'localhost:3000' };
    req.push(null);
    return req;
  }

  it('answers TRACE on an instance path 405 with Allow over HTTP, with and without reading the body', async () => {
    const t = await testInstance();
    const origin = new URL(ISSUER).origin;
    for (const base of [
      await serve(
        (request) => t.gatehouse.fetch(request),
        (_req, res) => ({ origin, response: res }),
      ),
      await serveRead((request) => t.gatehouse.fetch(request)),
    ]) {
      for (const [path, allow] of [
        ['/demo/oauth2/v1/token', 'POST'],
        ['/demo/oauth2/v1/keys', 'GET, HEAD'],
      ] as const) {
        const answer = await exchange(base, 'TRACE', path);
        expect(answer.status).toBe(405);
        expect(linesOf(answer.headers, 'allow')).toEqual([allow]);
        expect(JSON.parse(answer.body).error).toBe('method_not_allowed');
      }
    }
  });

  it('builds a body-less request for TRACK, CONNECT and non-token methods, which the instance answers 405', async () => {
    const t = await testInstance();
    for (const method of ['TRACK', 'CONNECT', 'trace', 'GE T']) {
      const request = toWebRequest(message(method, '/demo/oauth2/v1/token'));
      expect(request.body).toBeNull();
      const response = await t.gatehouse.fetch(request);
      expect(response.status).toBe(405);
      expect(response.headers.get('allow')).toBe('POST');
      const read = await readWebRequest(message(method, '/demo/oauth2/v1/keys'));
      expect((await t.gatehouse.fetch(read)).headers.get('allow')).toBe('GET, HEAD');
    }
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

describe('requests for host code (issue 42)', () => {
  const build = {
    toWebRequest: (req: IncomingMessage, res: ServerResponse) => toWebRequest(req, { response: res }),
    readWebRequest: (req: IncomingMessage, res: ServerResponse) => readWebRequest(req, { response: res }),
    'toWebRequest, headers only': (req: IncomingMessage) => toWebRequest(req, { ignoreBody: true }),
  };
  for (const [name, toRequest] of Object.entries(build)) {
    it(`${name} gives a platform Request: instanceof, new Request(r), clone, fetch(r), every body reader`, async () => {
      const probe = platformRequestProbe();
      const server = createServer(async (req, res) => {
        const request = await toRequest(req, res);
        // Headers only leaves the body to the host: read it here, as the probe's echo would.
        await sendWebResponse(res, await probe(request));
      });
      servers.push(server);
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
      const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/things?x=1`;
      if (name.endsWith('headers only')) {
        const answer = await (await fetch(url, { headers: { 'X-Probe': 'h' } })).json();
        expect(answer).toMatchObject({
          isRequest: true,
          header: 'h',
          fetched: { method: 'GET', header: 'h' },
        });
      } else {
        await expectPlatformRequests(url);
      }
    });
  }

  it('gives a method new Request() refuses (TRACE) as a platform Request reporting it, without throwing', async () => {
    const base = await serve((request) =>
      Response.json({ isRequest: request instanceof Request, method: request.method, body: request.body }),
    );
    const answer = await sendRaw(base, 'TRACE', '/x');
    expect({ status: answer.status, body: JSON.parse(answer.body) }).toEqual({
      status: 200,
      body: { isRequest: true, method: 'TRACE', body: null },
    });
  });

  it('hands operation handlers the platform Request the light one builds, with its client address', async () => {
    const t = await testInstance();
    const { access_token } = await issueTokens(t);
    const probe = platformRequestProbe();
    const addresses: (string | undefined)[] = [];
    const api = defineOperations(t.gatehouse, {
      'GET /api/v1/probe': {
        schemes: ['bearer'],
        handler: (request) => {
          addresses.push(clientAddressOf(request));
          return probe(request);
        },
      },
      'POST /api/v1/probe': { schemes: ['bearer'], handler: (request) => probe(request) },
      'PUT /api/v1/probe': { schemes: ['bearer'], handler: (request) => probe(request) },
    });
    const server = createServer(async (req, res) => {
      const request = toGatehouseRequest(req, { response: res });
      await sendWebResponse(res, (await api(request)) ?? new Response(null, { status: 404 }));
    });
    servers.push(server);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    // The instance routes on the path below its issuer's; fetch(r) comes back to this server.
    const issuerPath = new URL(ISSUER).pathname.replace(/\/$/, '');
    await expectPlatformRequests(`${base}${issuerPath}/api/v1/probe`, `Bearer ${access_token}`);
    expect(addresses[0]).toBe('127.0.0.1');
  });
});
