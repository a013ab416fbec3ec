/**
 * The Node.js bridge, request side: `IncomingMessage` → Web `Request`, written once and used by every
 * Node adapter (Express, Koa, plain `node:http`). It only translates; nothing protocol-related happens here.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { setClientAddress } from '../http/client-address.js';
import { hostRequest } from '../http/host-request.js';
import { BufferedRequest } from './buffered-request.js';
import { fetchAcceptsMethod } from './fetch-method.js';
import { encodePreParsedBody, type PreParsedBody } from './pre-parsed-body.js';
import { RawHeaders } from './raw-headers.js';
import { asError, bufferableLength, failedBody, hasBody, readSmallBody, streamBody } from './request-body.js';
import { defaultOrigin, requestUrl } from './request-url.js';

/** Options of {@link toWebRequest}. */
export interface ToWebRequestOptions {
  /**
   * Public origin (`https://example.com`) of the request URL. Frameworks compute it from their
   * proxy settings (Express `req.protocol` + `req.host`). Default: `http(s)://` + the `Host` header,
   * i.e. no proxy is trusted.
   */
  readonly origin?: string | (() => string);
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
  /**
   * Client address to attach (see `setClientAddress`), or a function giving it (a framework's
   * proxy-aware getter, e.g. `() => req.ip`). It is read once, as the request is built, and by
   * `readWebRequest` before the body: Node reports no address for a socket the client has reset,
   * so an address looked up later could be gone, and with it the per-address password limit.
   * Default: the socket's remote address, read the same way. With `ignoreBody` it is read when
   * first asked for instead (nothing is read from the socket before, and the bearer check never
   * asks: Express's `req.ip` was a third of the bridge's work on a bearer-protected GET). `origin`
   * may also be a function; it is called when the URL is first needed (a header-only check never
   * needs it).
   */
  readonly clientAddress?: string | (() => string | undefined);
  /**
   * The paired response. When given, the request's `signal` aborts if the client goes away before
   * the response is finished (Node does not report that on the request once its body is read).
   */
  readonly response?: ServerResponse;
}

/**
 * Builds a Web `Request` for a Node request: a platform `Request` (`instanceof Request`, accepted by
 * `new Request(r)` and `fetch(r)`), for host code. The body is streamed, not buffered
 * (`duplex: 'half'`), unless middleware already consumed it (see {@link ToWebRequestOptions.body}).
 * All headers are copied as received (repeated headers stay repeated). The request's `signal`
 * aborts when the client disconnects early (not with `ignoreBody`: a header-only request has
 * nothing to abort). A method `new Request()` refuses (`TRACE`, `TRACK`, `CONNECT`, non-tokens)
 * gets a body-less request reporting that method; nothing throws.
 *
 * For a request handed to Gatehouse itself, {@link toGatehouseRequest} is cheaper.
 */
export function toWebRequest(req: IncomingMessage, options: ToWebRequestOptions = {}): Request {
  return hostRequest(toGatehouseRequest(req, options));
}

/**
 * {@link toWebRequest} for a request handed only to Gatehouse (`answerOf`, an operations handler,
 * `withAuthentication`): a request without a body (`GET`, `HEAD`, `ignoreBody`), with one already
 * in memory, or with a method `new Request()` refuses is the bridge's light request, which skips
 * undici's header copying and stream machinery. It is not a platform `Request`; Gatehouse passes
 * host code the real one it builds on first use (an operation's handler, `currentUser`,
 * `rateLimit.clientAddress`), so do not hand it to anything else yourself.
 */
export function toGatehouseRequest(req: IncomingMessage, options: ToWebRequestOptions = {}): Request {
  if (options.ignoreBody) {
    return headerOnlyRequest(
      req,
      options.origin ?? defaultOrigin(req),
      options.mountPath,
      options.clientAddress,
    );
  }
  return buildRequest(req, options, readClientAddress(req, options));
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
 * {@link ReadWebRequestOptions.maxBufferedBytes}) is read from the socket first, and the request
 * is built with it in memory; other bodies are streamed as by `toWebRequest`. The declared length
 * bounds the memory. If the client goes away mid-body, the request's `signal` is aborted and
 * reading its body fails, as with a streamed body. It consumes the body stream: call it only for a
 * request you will answer. A platform `Request`, for host code; for a request handed to Gatehouse
 * itself, {@link readGatehouseRequest} is cheaper.
 */
export async function readWebRequest(
  req: IncomingMessage,
  options: ReadWebRequestOptions = {},
): Promise<Request> {
  return hostRequest(await readGatehouseRequest(req, options));
}

/**
 * {@link readWebRequest} for a request handed only to Gatehouse (`answerOf`, an operations
 * handler): a small body is held in memory by the bridge's light request, whose body methods read
 * the bytes directly (reading a buffered body costs far less than undici's stream machinery). Like
 * {@link toGatehouseRequest}'s, the request is not a platform `Request`, and Gatehouse hands host
 * code the real one.
 */
export async function readGatehouseRequest(
  req: IncomingMessage,
  options: ReadWebRequestOptions = {},
): Promise<Request> {
  if (options.ignoreBody) {
    return headerOnlyRequest(
      req,
      options.origin ?? defaultOrigin(req),
      options.mountPath,
      options.clientAddress,
    );
  }
  // Before the body: a client may reset the connection while it is read.
  const address = readClientAddress(req, options);
  const length = bufferableLength(req, options, options.maxBufferedBytes ?? DEFAULT_MAX_BUFFERED_BYTES);
  if (length === undefined) return buildRequest(req, options, address);
  try {
    return buildRequest(req, options, address, { bytes: await readSmallBody(req, length) });
  } catch (error) {
    return buildRequest(req, options, address, { failure: asError(error) });
  }
}

/** The client address, read now (see {@link ToWebRequestOptions.clientAddress}). */
function readClientAddress(req: IncomingMessage, options: ToWebRequestOptions): string | undefined {
  const { clientAddress } = options;
  const address =
    clientAddress === undefined
      ? req.socket?.remoteAddress
      : typeof clientAddress === 'function'
        ? clientAddress()
        : clientAddress;
  return address || undefined;
}

/**
 * The URL {@link toWebRequest} gives the request, without building it (so an adapter can decide
 * whether to answer before it touches the body).
 */
export function webRequestUrl(
  req: IncomingMessage,
  options: Pick<ToWebRequestOptions, 'origin' | 'mountPath'> = {},
): string {
  return publicUrl(req.url ?? '/', options.origin ?? defaultOrigin(req), options.mountPath);
}

function publicUrl(target: string, origin: string | (() => string), mountPath = ''): string {
  const base = typeof origin === 'function' ? origin() : origin;
  // The same endpoint is asked for again and again (and twice per request by the adapters: to
  // decide, then to build): the last answer is kept. It depends on these three strings only.
  const last = lastUrl;
  if (last.target === target && last.base === base && last.mountPath === mountPath) return last.href;
  const href = requestUrl(base, mountPath.replace(/\/+$/, ''), target).href;
  lastUrl = { target, base, mountPath, href };
  return href;
}

let lastUrl = { target: '', base: '', mountPath: '', href: '' };

/**
 * The request of a header-only check (`ignoreBody`): no body, no signal, and nothing worked out
 * before it is read: the URL (from the target taken now; `origin` and `mountPath` may be
 * functions) and the client address (default: the socket's) are made on first use. The adapters'
 * bearer checks build it for every protected request, so it allocates only the request and its
 * headers view.
 */
export function headerOnlyRequest(
  req: IncomingMessage,
  origin: string | (() => string),
  mountPath: string | (() => string) | undefined,
  clientAddress: string | (() => string | undefined) | undefined,
): Request {
  const target = req.url ?? '/';
  return new BufferedRequest(
    (req.method ?? 'GET').toUpperCase(),
    () => publicUrl(target, origin, typeof mountPath === 'function' ? mountPath() : mountPath),
    new RawHeaders(req.rawHeaders),
    null,
    { clientAddress: clientAddress ?? (() => req.socket?.remoteAddress) },
  );
}

/** A body already read into memory, or the reason reading it failed. */
type ReadBody = { readonly bytes: Uint8Array } | { readonly failure: Error };

function buildRequest(
  req: IncomingMessage,
  options: ToWebRequestOptions,
  clientAddress: string | undefined,
  read?: ReadBody,
): Request {
  const method = (req.method ?? 'GET').toUpperCase();
  // Only the URL of a buffered request is built when first read: frameworks rewrite `req.url` as
  // they route, so its parts are taken now.
  const target = req.url ?? '/';
  const origin = options.origin ?? defaultOrigin(req);
  const lazyUrl = () => publicUrl(target, origin, options.mountPath);
  const headers = new RawHeaders(req.rawHeaders);

  if (read && 'failure' in read) {
    const failed = new AbortController();
    failed.abort(read.failure);
    return streamedRequest(
      lazyUrl(),
      method,
      headers,
      failed.signal,
      failedBody(read.failure),
      clientAddress,
    );
  }
  const buffered = { signal: () => abortSignal(req, options.response), clientAddress };
  if (method === 'GET' || method === 'HEAD' || !fetchAcceptsMethod(method)) {
    return new BufferedRequest(method, lazyUrl, headers, null, buffered);
  }
  if (read) return new BufferedRequest(method, lazyUrl, headers, read.bytes, buffered);
  if (req.readableEnded) {
    // Already consumed by middleware: rebuild it from what that middleware kept, if anything.
    const bytes = options.body
      ? encodePreParsedBody(options.body, headers.get('content-type'))
      : new Uint8Array();
    headers.delete('transfer-encoding');
    headers.set('content-length', String(bytes.byteLength));
    return new BufferedRequest(method, lazyUrl, headers, bytes.byteLength > 0 ? bytes : null, buffered);
  }
  const body = hasBody(req) ? streamBody(req) : null;
  return streamedRequest(lazyUrl(), method, headers, abortSignal(req, options.response), body, clientAddress);
}

/** An undici `Request` with a streamed body (`duplex: 'half'`) and the client address attached. */
function streamedRequest(
  url: string,
  method: string,
  headers: RawHeaders,
  signal: AbortSignal,
  body: ReadableStream<Uint8Array> | null,
  clientAddress: string | undefined,
): Request {
  const init = {
    method,
    headers: headers.pairs(),
    signal,
    body,
    duplex: 'half',
  } as RequestInit;
  const request = new Request(url, init);
  setClientAddress(request, clientAddress);
  return request;
}

/**
 * A signal that aborts when the client disconnects before the response is finished (Node does not
 * report that on the request once its body is read). Made on first use for a buffered request: a
 * client already gone by then gets an aborted signal at once.
 */
function abortSignal(req: IncomingMessage, res: ServerResponse | undefined): AbortSignal {
  const controller = new AbortController();
  const abort = () => controller.abort(new Error('The client closed the connection.'));
  if (req.destroyed && !req.complete) abort();
  else if (res && (res.destroyed || res.closed) && !res.writableFinished) abort();
  if (controller.signal.aborted) return controller.signal;
  req.once('aborted', abort);
  req.once('error', abort);
  if (res) {
    res.once('close', () => {
      if (!res.writableFinished) abort();
    });
  }
  return controller.signal;
}
