/**
 * The Node.js bridge: `IncomingMessage` → Web `Request` and Web `Response` → `ServerResponse`,
 * written once and used by every Node adapter (Express, Koa, plain `node:http`). It only
 * translates; nothing protocol-related happens here.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { setClientAddress } from '../http/client-address.js';

/** A body some middleware already read from the stream (`express.json()`, a Koa body parser, …). */
export interface PreParsedBody {
  /** What the parser produced (`req.body` / `ctx.request.body`). */
  readonly value: unknown;
  /** The raw bytes, if the parser kept them (`req.rawBody` / `ctx.request.rawBody`). Preferred. */
  readonly raw?: Uint8Array | string;
}

/** Options of {@link toWebRequest}. */
export interface ToWebRequestOptions {
  /**
   * Public origin (`https://example.com`) of the request URL. Frameworks compute it from their
   * proxy settings (Express `req.protocol` + `req.host`). Default: `http(s)://` + the `Host` header,
   * i.e. no proxy is trusted.
   */
  readonly origin?: string;
  /**
   * Path prefix a router stripped from `req.url` (Express `req.baseUrl`), put back so the URL is
   * the one the client requested. Default: none.
   */
  readonly mountPath?: string;
  /**
   * Used only when middleware already consumed the body stream: the body is then re-encoded from
   * it. See {@link encodePreParsedBody} for what survives re-encoding.
   */
  readonly body?: PreParsedBody;
  /**
   * Build the request without a body and leave the stream untouched for the host (authentication
   * reads headers only). Default `false`.
   */
  readonly ignoreBody?: boolean;
  /** Client address to attach (see `setClientAddress`). Default: the socket's remote address. */
  readonly clientAddress?: string;
  /**
   * The paired response. When given, the request's `signal` aborts if the client goes away before
   * the response is finished (Node does not report that on the request once its body is read).
   */
  readonly response?: ServerResponse;
}

/**
 * Builds a Web `Request` for a Node request. The body is streamed, not buffered (`duplex: 'half'`),
 * unless middleware already consumed it (see {@link ToWebRequestOptions.body}). All headers are
 * copied as received (repeated headers stay repeated). The request's `signal` aborts when the
 * client disconnects early (not with `ignoreBody`: a header-only request has nothing to abort).
 */
export function toWebRequest(req: IncomingMessage, options: ToWebRequestOptions = {}): Request {
  return buildRequest(req, options);
}

/** Options of {@link readWebRequest}. */
export interface ReadWebRequestOptions extends ToWebRequestOptions {
  /**
   * Largest declared `Content-Length` read into memory before the `Request` is built; longer
   * bodies and bodies of unknown length are streamed. Default 64 KiB.
   */
  readonly maxBufferedBytes?: number;
}

const DEFAULT_MAX_BUFFERED_BYTES = 64 * 1024;

/**
 * Like {@link toWebRequest}, but a small body (`Content-Length` known and at most
 * {@link ReadWebRequestOptions.maxBufferedBytes}) is read from the socket first and handed to the
 * `Request` as bytes: reading a buffered body costs far less than undici's stream machinery, and
 * the declared length bounds the memory. Other bodies are streamed as by `toWebRequest`. If the
 * client goes away mid-body, the request's `signal` is aborted and reading its body fails, as
 * with a streamed body. It consumes the body stream: call it only for a request you will answer.
 */
export async function readWebRequest(
  req: IncomingMessage,
  options: ReadWebRequestOptions = {},
): Promise<Request> {
  const length = bufferableLength(req, options, options.maxBufferedBytes ?? DEFAULT_MAX_BUFFERED_BYTES);
  if (length === undefined) return buildRequest(req, options);
  try {
    return buildRequest(req, options, { bytes: await readSmallBody(req, length) });
  } catch (error) {
    return buildRequest(req, options, { failure: asError(error) });
  }
}

/**
 * The URL {@link toWebRequest} gives the request, without building it (so an adapter can decide
 * whether to answer before it touches the body).
 */
export function webRequestUrl(
  req: IncomingMessage,
  options: Pick<ToWebRequestOptions, 'origin' | 'mountPath'> = {},
): string {
  const origin = options.origin ?? defaultOrigin(req);
  return requestUrl(origin, (options.mountPath ?? '').replace(/\/+$/, ''), req.url ?? '/').href;
}

/** A body already read into memory, or the reason reading it failed. */
type ReadBody = { readonly bytes: Uint8Array } | { readonly failure: Error };

function buildRequest(req: IncomingMessage, options: ToWebRequestOptions, read?: ReadBody): Request {
  const method = (req.method ?? 'GET').toUpperCase();
  const url = webRequestUrl(req, options);
  const headers = copyHeaders(req.rawHeaders);
  const init: RequestInit & { duplex?: 'half' } = { method, headers };

  if (!options.ignoreBody) {
    // Header-only requests (authentication) get neither a signal nor listeners: nothing reads a
    // body or waits on the request, and three listeners per call are measurable.
    const controller = new AbortController();
    const abort = () => controller.abort(new Error('The client closed the connection.'));
    if (read && 'failure' in read) {
      controller.abort(read.failure);
    } else {
      req.once('aborted', abort);
      req.once('error', abort);
      const res = options.response;
      if (res) {
        res.once('close', () => {
          if (!res.writableFinished) abort();
        });
      }
    }
    init.signal = controller.signal;
  }

  if (method !== 'GET' && method !== 'HEAD' && !options.ignoreBody) {
    if (read) {
      init.body = 'bytes' in read ? (read.bytes as Uint8Array<ArrayBuffer>) : failedBody(read.failure);
    } else if (req.readableEnded) {
      // Already consumed by middleware: rebuild it from what that middleware kept, if anything.
      const bytes = options.body
        ? encodePreParsedBody(options.body, headers.get('content-type'))
        : new Uint8Array();
      headers.delete('transfer-encoding');
      headers.set('content-length', String(bytes.byteLength));
      init.body = bytes.byteLength > 0 ? (bytes as Uint8Array<ArrayBuffer>) : null;
    } else if (hasBody(req)) {
      init.body = streamBody(req);
    }
    if (init.body instanceof ReadableStream) init.duplex = 'half';
  }

  const request = new Request(url, init);
  setClientAddress(request, options.clientAddress ?? req.socket?.remoteAddress);
  return request;
}

/** All header fields as received, in one pass (repeated fields stay repeated). */
function copyHeaders(raw: readonly string[]): Headers {
  const headers = new Headers();
  for (let i = 0; i + 1 < raw.length; i += 2) {
    const name = raw[i]!;
    // HTTP/2 pseudo-headers (`:path`, …) are not header fields of the message.
    if (name.charCodeAt(0) !== 58 /* ':' */) headers.append(name, raw[i + 1]!);
  }
  return headers;
}

/** The body length if {@link readWebRequest} should read the body into memory, else `undefined`. */
function bufferableLength(
  req: IncomingMessage,
  options: ToWebRequestOptions,
  limit: number,
): number | undefined {
  const method = req.method ?? 'GET';
  if (options.ignoreBody || method === 'GET' || method === 'HEAD' || req.readableEnded) return undefined;
  if (req.headers['transfer-encoding'] !== undefined) return undefined;
  const declared = req.headers['content-length'];
  if (declared === undefined || !/^\d+$/.test(declared)) return undefined;
  const length = Number(declared);
  return length > 0 && length <= limit ? length : undefined;
}

/**
 * Reads a body whose length Node's parser enforces (RFC 9112 §6.2), so at most `length` bytes
 * arrive. Fails if the client goes away before the end.
 */
function readSmallBody(req: IncomingMessage, length: number): Promise<Uint8Array> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const onData = (chunk: Buffer) => {
      chunks.push(chunk);
      size += chunk.byteLength;
    };
    const detach = () => {
      req.off('data', onData);
      req.off('end', onEnd);
      req.off('error', onFailure);
      req.off('aborted', onFailure);
      req.off('close', onClose);
    };
    const onEnd = () => {
      detach();
      resolve(chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, Math.min(size, length)));
    };
    const onFailure = () => {
      detach();
      reject(new Error('The client closed the connection.'));
    };
    // `close` without `end` (no `error` listener of Node's own would report it otherwise).
    const onClose = () => {
      if (!req.complete) onFailure();
    };
    req.on('data', onData);
    req.once('end', onEnd);
    req.once('error', onFailure);
    req.once('aborted', onFailure);
    req.once('close', onClose);
  });
}

/** A body stream that fails at once: what a reader of a body cut short should see. */
function failedBody(error: Error): ReadableStream<Uint8Array> {
  return new ReadableStream<Uint8Array>({
    start(controller) {
      controller.error(error);
    },
  });
}

function asError(error: unknown): Error {
  return error instanceof Error ? error : new Error(String(error));
}

/** Options of {@link sendWebResponse}. */
export interface SendWebResponseOptions {
  /** The request method; for `HEAD` no body is sent. Default: `res.req.method`. */
  readonly method?: string;
}

/**
 * Writes a Web `Response` to a Node `ServerResponse`: status and headers in one `writeHead` (each
 * `Set-Cookie` as its own header line, via `getSetCookie()`), then the body. A body that is
 * complete after its first chunk (a `Response` built from a string, bytes or JSON) goes out in one
 * `end()` with its `Content-Length`, i.e. one write; longer bodies are streamed with back-pressure.
 * No body for `HEAD` and the statuses that have none. If the client goes away mid-body, the body
 * stream is cancelled and the promise resolves (there is nobody left to tell).
 */
export async function sendWebResponse(
  res: ServerResponse,
  response: Response,
  options: SendWebResponseOptions = {},
): Promise<void> {
  // A flat name/value list. Set-Cookie goes in as one array: Node writes each element as its own
  // header line (repeated names in a flat list would keep only the last).
  const fields: (string | string[])[] = [];
  let framed = false;
  for (const [name, value] of response.headers) {
    if (name === 'set-cookie') continue;
    if (name === 'content-length' || name === 'transfer-encoding') framed = true;
    fields.push(name, value);
  }
  const cookies = response.headers.getSetCookie();
  if (cookies.length > 0) {
    // `writeHead` replaces a header the host already set with `setHeader` (e.g. Express's
    // `res.cookie`) by the one given here: keep the host's cookies in front of ours.
    const prior = res.getHeader('set-cookie');
    const hostCookies = prior === undefined ? [] : Array.isArray(prior) ? prior : [String(prior)];
    fields.push('set-cookie', [...hostCookies, ...cookies]);
  }

  const method = (options.method ?? res.req?.method ?? 'GET').toUpperCase();
  const bodyless = method === 'HEAD' || response.status === 204 || response.status === 304;
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
      if (!res.write(chunk)) {
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
      if (!res.write(next.value)) {
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

/** Status line and every header field at once (a flat name/value list keeps repeated fields). */
function writeHead(res: ServerResponse, response: Response, fields: (string | string[])[]): void {
  if (response.statusText) res.writeHead(response.status, response.statusText, fields);
  else res.writeHead(response.status, fields);
}

/**
 * Re-encodes a body a parser already consumed, for its `Content-Type`:
 * - the raw bytes, when the parser kept them (byte-faithful; always prefer this);
 * - bytes (`express.raw()`) and text (`express.text()`) as they are;
 * - forms (`application/x-www-form-urlencoded`): `URLSearchParams` of the parsed object, arrays as
 *   repeated names (so RFC 6749 §3.1 duplicate detection still works) and nested objects
 *   (`extended` parsers) in bracket notation. Not byte-faithful: percent-encoding is normalised and
 *   integer-like names move first (JavaScript object key order). Parameter names and values survive.
 * - JSON (`application/json`, `+json`): `JSON.stringify` of the value (whitespace and duplicate
 *   member names are lost).
 * - anything else: an empty body (the parsed form of an unknown type cannot be rebuilt).
 */
export function encodePreParsedBody(body: PreParsedBody, contentType: string | null): Uint8Array {
  const utf8 = (text: string) => new TextEncoder().encode(text);
  if (typeof body.raw === 'string') return utf8(body.raw);
  if (body.raw instanceof Uint8Array) return body.raw;
  const { value } = body;
  if (value instanceof Uint8Array) return value;
  if (typeof value === 'string') return utf8(value);
  if (value === undefined || value === null) return new Uint8Array();
  const type = (contentType ?? '').split(';')[0]!.trim().toLowerCase();
  if (type === 'application/x-www-form-urlencoded') {
    const params = new URLSearchParams();
    appendFormValue(params, undefined, value);
    return utf8(params.toString());
  }
  if (type === 'application/json' || type.endsWith('+json')) return utf8(JSON.stringify(value));
  return new Uint8Array();
}

function appendFormValue(params: URLSearchParams, name: string | undefined, value: unknown): void {
  if (value === undefined || value === null) return;
  if (Array.isArray(value)) {
    for (const item of value) appendFormValue(params, name, item);
  } else if (typeof value === 'object') {
    for (const [key, item] of Object.entries(value))
      appendFormValue(params, name === undefined ? key : `${name}[${key}]`, item);
  } else if (name !== undefined) {
    params.append(name, String(value));
  }
}

/** RFC 9112 §6.3: a request has a body iff it has `Transfer-Encoding` or a non-zero `Content-Length`. */
function hasBody(req: IncomingMessage): boolean {
  if (req.headers['transfer-encoding'] !== undefined) return true;
  const length = req.headers['content-length'];
  return length !== undefined && length !== '0';
}

/**
 * A pull-based stream over the request: it touches the Node stream only once someone reads
 * (high-water mark 0), and then only as fast as they read.
 */
function streamBody(req: IncomingMessage): ReadableStream<Uint8Array> {
  let onData: (chunk: Buffer) => void;
  let onEnd: () => void;
  let onError: (error: Error) => void;
  const detach = () => {
    req.off('data', onData);
    req.off('end', onEnd);
    req.off('error', onError);
  };
  let attached = false;
  return new ReadableStream<Uint8Array>(
    {
      pull(controller) {
        if (attached) {
          req.resume();
          return;
        }
        attached = true;
        onData = (chunk) => {
          controller.enqueue(new Uint8Array(chunk.buffer, chunk.byteOffset, chunk.byteLength));
          if ((controller.desiredSize ?? 0) <= 0) req.pause();
        };
        onEnd = () => {
          detach();
          controller.close();
        };
        onError = (error) => {
          detach();
          controller.error(error);
        };
        req.on('data', onData);
        req.once('end', onEnd);
        req.once('error', onError);
        req.resume();
      },
      cancel() {
        // The consumer gave up (e.g. a 413): discard the rest instead of destroying the socket, so
        // the answer can still be delivered.
        if (attached) detach();
        req.resume();
      },
    },
    { highWaterMark: 0 },
  );
}

/**
 * The URL the client asked for. Concatenated, never resolved: a target like `//evil.example/x` is a
 * path here, not a protocol-relative URL. An absolute-form target (RFC 9112 §3.2.2) keeps only its
 * path and query. The origin must be exactly scheme://host[:port]: a `Host` header carrying a path,
 * query, fragment or credentials (Node lets `/`, `?`, `#` through) would otherwise move the request
 * to another route than the one the host's own middleware saw; such an origin, or a malformed one,
 * falls back to `http://localhost`.
 */
function requestUrl(origin: string, mountPath: string, target: string): URL {
  let pathAndQuery = target;
  if (!target.startsWith('/')) {
    try {
      const absolute = new URL(target);
      pathAndQuery = absolute.pathname + absolute.search;
    } catch {
      pathAndQuery = `/${target}`;
    }
  }
  return new URL(safeOrigin(origin) + mountPath + pathAndQuery);
}

/** `origin` when it is a bare origin (scheme://host[:port]), else `http://localhost`. */
function safeOrigin(origin: string): string {
  const separator = origin.indexOf('://');
  if (separator > 0 && !/[/?#@\\\s]/.test(origin.slice(separator + 3))) {
    try {
      const parsed = new URL(origin);
      if (parsed.protocol === 'http:' || parsed.protocol === 'https:') return parsed.origin;
    } catch {
      // Malformed: fall through.
    }
  }
  return 'http://localhost';
}

function defaultOrigin(req: IncomingMessage): string {
  const encrypted = (req.socket as { encrypted?: boolean } | undefined)?.encrypted === true;
  const host = req.headers.host ?? req.headers[':authority'] ?? 'localhost';
  return `${encrypted ? 'https' : 'http'}://${host}`;
}

function endResponse(res: ServerResponse, chunk?: Uint8Array): Promise<void> {
  return new Promise((resolve) => {
    if (res.destroyed) return resolve();
    if (chunk) res.end(chunk, () => resolve());
    else res.end(() => resolve());
    res.once('close', () => resolve());
  });
}
