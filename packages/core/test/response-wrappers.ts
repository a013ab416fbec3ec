/**
 * The host's middleware that wraps `res.write`/`res.end` (express-session, compression, a
 * hand-written logger), and the answers of every shape the Node bridge writes differently, for the
 * adapter tests: an adapter runs {@link responseWrappers} before its Gatehouse middleware, serves
 * {@link bodyShapes} as the host's operations beside a real instance, and calls
 * {@link expectAnswersBehindResponseWrappers}.
 */
import { Buffer } from 'node:buffer';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { OperationsHandler } from '@gatehousejs/core/protect';
import compression from 'compression';
import session from 'express-session';
import { expect } from 'vitest';

/** Large enough for compression's default threshold (1 KB), so that it does compress. */
const TEXT = 'Gatehouse answers behind the host’s middleware. '.repeat(60);

/**
 * The host's operations answering `/demo/shape/*` with the shapes of `Response` the bridge writes
 * each its own way: no body (a redirect, as RP-initiated logout answers), a body complete after one
 * chunk, and a streamed body of several chunks.
 */
export const bodyShapes: OperationsHandler = async (request) => {
  switch (new URL(request.url).pathname) {
    case '/demo/shape/empty':
      return new Response(null, { status: 303, headers: { Location: 'http://localhost/signed-out' } });
    case '/demo/shape/one':
      return new Response(TEXT, { headers: { 'Content-Type': 'text/plain; charset=utf-8' } });
    case '/demo/shape/stream': {
      const encoder = new TextEncoder();
      const parts = [TEXT.slice(0, 1000), TEXT.slice(1000, 2000), TEXT.slice(2000)];
      const body = new ReadableStream<Uint8Array>({
        pull(controller) {
          const next = parts.shift();
          if (next === undefined) controller.close();
          else controller.enqueue(encoder.encode(next));
        },
      });
      return new Response(body, { headers: { 'Content-Type': 'text/plain; charset=utf-8' } });
    }
    default:
      return undefined;
  }
};

/** Connect-style middleware, as Express, `@fastify/middie` and koa-connect run it. */
export type NodeMiddleware = (
  req: IncomingMessage,
  res: ServerResponse,
  next: (error?: unknown) => void,
) => void;

/**
 * express-session (a session saved or touched before its `end` goes through), compression (the body
 * goes through gzip) and a hand-written wrapper of the usual `(chunk, encoding)` shape that records
 * the kind of every chunk it is given and ends a moment later, as one saving something first does,
 * run in that order (so the hand-written one is what the bridge calls).
 */
export function responseWrappers(): { readonly use: NodeMiddleware; readonly calls: string[] } {
  const calls: string[] = [];
  const chain: NodeMiddleware[] = [
    session({ secret: 'wrapper-test-secret', resave: false, saveUninitialized: true }) as never,
    compression() as never,
    (_req, res, next) => {
      const write = res.write;
      const end = res.end;
      res.write = function (this: ServerResponse, chunk: unknown, encoding?: unknown) {
        calls.push(`write ${kindOf(chunk)}`);
        return write.call(this, chunk, encoding as BufferEncoding);
      } as typeof res.write;
      res.end = function (this: ServerResponse, chunk?: unknown, encoding?: unknown) {
        calls.push(`end ${kindOf(chunk)}`);
        setTimeout(() => end.call(this, chunk, encoding as BufferEncoding), 5);
        return this;
      } as typeof res.end;
      next();
    },
  ];
  const use: NodeMiddleware = (req, res, next) => {
    let i = 0;
    const step = (error?: unknown): void => {
      if (error !== undefined || i === chain.length) next(error);
      else chain[i++]!(req, res, step);
    };
    step();
  };
  return { use, calls };
}

function kindOf(chunk: unknown): string {
  if (chunk === undefined || chunk === null) return 'none';
  if (Buffer.isBuffer(chunk)) return 'buffer';
  return typeof chunk;
}

/**
 * Through the wrappers of {@link responseWrappers} (their `calls`), at `base`: every shape of
 * {@link bodyShapes}, `HEAD` of one, and a real instance's text answer (its discovery document,
 * `/demo/.well-known/openid-configuration`) arrive whole and compressed where compressible, first
 * without the session cookie (express-session saves a new session) and then with it (it touches
 * it); the wrapper is only ever given bytes, never a function.
 */
export async function expectAnswersBehindResponseWrappers(base: string, calls: string[]): Promise<void> {
  let cookie = '';
  for (const round of ['new session', 'known session']) {
    const get = (path: string, method = 'GET') =>
      fetch(base + path, {
        method,
        redirect: 'manual',
        headers: { 'Accept-Encoding': 'gzip', ...(cookie ? { Cookie: cookie } : {}) },
        signal: AbortSignal.timeout(5000),
      });

    const empty = await get('/demo/shape/empty');
    expect({ round, status: empty.status, location: empty.headers.get('location') }).toEqual({
      round,
      status: 303,
      location: 'http://localhost/signed-out',
    });
    expect(await empty.text()).toBe('');
    const session = empty.headers.getSetCookie().find((c) => c.startsWith('connect.sid='));
    if (round === 'new session') {
      expect(session, 'express-session set its cookie').toBeDefined();
      cookie = session!.split(';')[0]!;
    }

    for (const path of ['/demo/shape/one', '/demo/shape/stream']) {
      const answer = await get(path);
      expect({
        round,
        path,
        status: answer.status,
        encoding: answer.headers.get('content-encoding'),
      }).toEqual({
        round,
        path,
        status: 200,
        encoding: 'gzip',
      });
      expect(await answer.text()).toBe(TEXT);
    }

    const head = await get('/demo/shape/one', 'HEAD');
    expect({ round, status: head.status, body: await head.text() }).toEqual({ round, status: 200, body: '' });

    const discovery = await get('/demo/.well-known/openid-configuration');
    expect({ round, status: discovery.status }).toEqual({ round, status: 200 });
    expect((await discovery.json()).issuer).toBe('http://localhost:3000/demo');
  }
  expect(calls.length).toBeGreaterThan(0);
  expect(
    calls.filter((call) => !/^(write buffer|end buffer|end none|write string|end string)$/.test(call)),
  ).toEqual([]);
}
