/**
 * The Node.js bridge, response side: Web `Response` → `ServerResponse`, written once and used by every
 * Node adapter. It only translates.
 */
import type { ServerResponse } from 'node:http';
import { type Answer, fieldsOf, isReply, type Reply } from '../http/reply.js';
import { replyFields } from '../http/reply-headers.js';
import { asError } from './request-body.js';

/** Options of {@link sendWebResponse}. */
export interface SendWebResponseOptions {
  /** The request method; for `HEAD` no body is sent. Default: `res.req.method`. */
  readonly method?: string;
}

/**
 * Writes a Web `Response`, or a Gatehouse `Reply` (see `Gatehouse.answer`: its text goes out in one
 * write, no stream involved), to a Node `ServerResponse`: status and headers in one `writeHead` (each
 * `Set-Cookie` as its own header line, via `getSetCookie()`), then the body. A body that is
 * complete after its first chunk (a `Response` built from a string, bytes or JSON) goes out in one
 * `end()` with its `Content-Length`, i.e. one write; longer bodies are streamed with back-pressure.
 * No body for `HEAD` and the statuses that have none. If the client goes away mid-body, the body
 * stream is cancelled and the promise resolves (there is nobody left to tell).
 */
export function sendWebResponse(
  res: ServerResponse,
  response: Answer,
  options: SendWebResponseOptions = {},
): Promise<void> {
  if (!isReply(response)) return sendResponse(res, response, options);
  // Text already in memory: written now, and the promise is one already settled (no async
  // function, whose promise and resolution every Gatehouse answer would pay for).
  try {
    sendReply(res, response, options);
    return SENT;
  } catch (error) {
    return Promise.reject(error);
  }
}

const SENT = Promise.resolve();

/** A `Reply`: one write with its length, no stream to read. */
function sendReply(res: ServerResponse, reply: Reply, options: SendWebResponseOptions): void {
  const { fields, framed } = headerFields(res, fieldsOf(reply));
  const body = isBodyless(res, reply, options) || reply.body === null ? undefined : Buffer.from(reply.body);
  if (body && !framed) fields.push('content-length', String(body.byteLength));
  writeHead(res, reply, fields);
  // Handed to Node whole: nothing is left to wait for or cancel.
  if (!res.destroyed) res.end(body);
}

/** No body for `HEAD` and the statuses that have none. */
function isBodyless(res: ServerResponse, answer: Answer, options: SendWebResponseOptions): boolean {
  const method = (options.method ?? res.req?.method ?? 'GET').toUpperCase();
  return method === 'HEAD' || answer.status === 204 || answer.status === 304;
}

/** A `Response`: its body read from its stream, in one write when it is complete after one chunk. */
async function sendResponse(
  res: ServerResponse,
  response: Response,
  options: SendWebResponseOptions,
): Promise<void> {
  const { fields, framed } = headerFields(res, response.headers);
  const bodyless = isBodyless(res, response, options);
  if (!response.body || bodyless) {
    await response.body?.cancel().catch(() => {});
    writeHead(res, response, fields);
    await endResponse(res);
    return;
  }

  const reader = response.body.getReader();
  const closed = new Promise<void>((resolve) => res.once('close', resolve));
  const read = () => Promise.race([reader.read(), closed.then(() => undefined)]);
  try {
    const first = await read();
    const second = first && !first.done ? await read() : first;
    if (!first || !second || res.destroyed) {
      await reader.cancel().catch(() => {});
      return;
    }
    if (second.done) {
      // Complete after one chunk (or empty): one write, with its length.
      const chunk = first.done ? undefined : first.value;
      if (!framed) fields.push('content-length', String(chunk?.byteLength ?? 0));
      writeHead(res, response, fields);
      await endResponse(res, chunk);
      return;
    }
    writeHead(res, response, fields);
    for (const chunk of [first.value!, second.value]) {
      if (!res.write(asBuffer(chunk))) {
        await Promise.race([new Promise((resolve) => res.once('drain', resolve)), closed]);
      }
    }
    for (;;) {
      const next = await read();
      if (!next || res.destroyed) {
        await reader.cancel().catch(() => {});
        return;
      }
      if (next.done) break;
      if (!res.write(asBuffer(next.value))) {
        await Promise.race([new Promise((resolve) => res.once('drain', resolve)), closed]);
      }
    }
  } catch (error) {
    // The body stream failed: before the head was sent this is still a cut connection (a status
    // of 200 was promised by the Response), and after it the only honest signal left.
    await reader.cancel().catch(() => {});
    res.destroy(asError(error));
    return;
  }
  await endResponse(res);
}

/**
 * The header fields as a flat name/value list for `writeHead`, and whether they frame the body
 * themselves (`Content-Length`, `Transfer-Encoding`).
 */
function headerFields(
  res: ServerResponse,
  headers: Headers,
): { fields: (string | string[])[]; framed: boolean } {
  // Gatehouse's own fields, still a plain list (`ReplyHeaders`: no Set-Cookie among them): copied
  // as they are, without iterating a `Headers`.
  const listed = replyFields(headers);
  if (listed !== undefined) {
    let framed = false;
    for (let i = 0; i < listed.length; i += 2) {
      if (listed[i] === 'content-length' || listed[i] === 'transfer-encoding') framed = true;
    }
    return { fields: listed.slice(), framed };
  }
  // Set-Cookie goes in as one array: Node writes each element as its own header line (repeated
  // names in a flat list would keep only the last).
  const fields: (string | string[])[] = [];
  let framed = false;
  for (const [name, value] of headers) {
    if (name === 'set-cookie') continue;
    if (name === 'content-length' || name === 'transfer-encoding') framed = true;
    fields.push(name, value);
  }
  const cookies = headers.getSetCookie();
  if (cookies.length > 0) {
    // `writeHead` replaces a header the host already set with `setHeader` (e.g. Express's
    // `res.cookie`) by the one given here: keep the host's cookies in front of ours.
    const prior = res.getHeader('set-cookie');
    const hostCookies = prior === undefined ? [] : Array.isArray(prior) ? prior : [String(prior)];
    fields.push('set-cookie', [...hostCookies, ...cookies]);
  }
  return { fields, framed };
}

/** Status line and every header field at once (a flat name/value list keeps repeated fields). */
function writeHead(res: ServerResponse, response: Answer, fields: (string | string[])[]): void {
  if (!isReply(response) && response.statusText) res.writeHead(response.status, response.statusText, fields);
  else res.writeHead(response.status, fields);
}

/**
 * Ends the response with its last chunk and resolves when Node has handed it over (`finish`) or the
 * connection is gone (`close`). `end` gets the chunk only, never a callback: middleware wraps
 * `res.end(chunk, encoding)` (express-session, compression, loggers) and would take a function for
 * the chunk or the encoding, and a wrapper that ends later (express-session saves the session
 * first) would drop it.
 */
function endResponse(res: ServerResponse, chunk?: Uint8Array): Promise<void> {
  if (res.destroyed || res.writableFinished) return SENT;
  const ended = new Promise<void>((resolve) => {
    const done = () => {
      res.off('finish', done);
      res.off('close', done);
      resolve();
    };
    res.once('finish', done);
    res.once('close', done);
  });
  if (chunk) res.end(asBuffer(chunk));
  else res.end();
  return ended;
}

/**
 * The same bytes as a `Buffer` (no copy): what `res.write`/`res.end` wrappers of the host's
 * middleware expect besides strings (compression's `Buffer.isBuffer`, express-session's).
 */
function asBuffer(chunk: Uint8Array): Buffer {
  return Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength);
}
