/**
 * The Node.js bridge, request side: `IncomingMessage` → Web `Request`, written once and used by every
 * Node adapter (Express, Koa, plain `node:http`). It only translates; nothing protocol-related happens here.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { setClientAddress } from '../http/client-address.js';
import { encodePreParsedBody, type PreParsedBody } from './pre-parsed-body.js';
import { asError, bufferableLength, failedBody, hasBody, readSmallBody, streamBody } from './request-body.js';
import { defaultOrigin, requestUrl } from './request-url.js';

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
