import { setClientAddress } from '../http/client-address.js';
import { HOST_REQUEST, type HostRequestSource } from '../http/host-request.js';
import { fetchAcceptsMethod } from './fetch-method.js';
import { RawHeaders } from './raw-headers.js';

/** Options of {@link BufferedRequest}. */
export interface BufferedRequestOptions {
  /**
   * Aborts when the client goes away (see `toWebRequest`), or a function making it on first use
   * (most requests never look at their signal, and watching the connection has a cost). Default: a
   * fresh, never-aborted signal, made on first use.
   */
  readonly signal?: AbortSignal | (() => AbortSignal) | undefined;
  /**
   * The client address (see `setClientAddress` of `@gatehousejs/core`), or a function giving it,
   * called on first read (a header-only check never reads it, and a framework's proxy-aware
   * getter is not free: Express's `req.ip` parses `X-Forwarded-For` on every call). Default: unknown.
   */
  readonly clientAddress?: string | (() => string | undefined) | undefined;
}

/** The key `clientAddressOf` reads (`http/client-address.ts`). */
const CLIENT_ADDRESS = Symbol.for('gatehouse.clientAddress');
/** The key `bodyText` reads (`BufferedBody` of `http/body.ts`). */
const BUFFERED_BODY = Symbol.for('gatehouse.bufferedBody');

/**
 * The Node bridge's light request: what it hands to Gatehouse (never to host code) for header-only
 * checks, body-less requests and small bodies it read from the socket.
 *
 * Why not undici's `Request`: building one copies every header field through WebIDL, wraps the body
 * bytes in a `ReadableStream` (and a transferable one at that), and reading it back goes through
 * the stream machinery. On a token request that was about a seventh of the server's time
 * (bench/RESULTS.md, run F); on a bearer check, the headers were most of the bridge's work. Here
 * `headers.get` scans Node's raw list, and `text()`, `arrayBuffer()`, `bytes()` and `json()` read
 * the bytes directly.
 *
 * It is not a platform `Request`: it has `Request`'s members (so Gatehouse reads it like one), but
 * neither `Request.prototype` (`instanceof Request` is false) nor the internal slots that
 * `new Request(r)` and `fetch(r)` look for on Node, Bun and Deno (which a prototype chained to
 * `Request.prototype` would not give it either). So it is never handed to host code: where Gatehouse calls the host with a request
 * (`hostRequest` of `http/host-request.ts`), it passes the real `Request` this object builds on
 * first use, with the same method, URL, header fields, signal, client address and bytes (and a body
 * already read if Gatehouse read it). Every member not served from memory (`body`, `formData()`,
 * `blob()`, `cache`, …) is answered by that same real `Request`, whose body state is the one from
 * then on.
 */
export class BufferedRequest implements Request, HostRequestSource {
  /** The method, upper-case as the bridge normalised it. */
  readonly method: string;
  #url: string | (() => string);
  /** The header fields as received. */
  readonly headers: Headers;
  #signal: AbortSignal | (() => AbortSignal) | undefined;
  #clientAddress: string | (() => string | undefined) | undefined;
  /** The body bytes; `null` for a request without a body. */
  readonly #bytes: Uint8Array | null;
  #consumed = false;
  #real: Request | undefined;

  /**
   * @param url The absolute URL, or a function making it on first read (see `options`).
   * @param bytes The whole body, or `null` for none (as for `GET`). The bytes are not copied: the
   *   caller must not change them afterwards.
   */
  constructor(
    method: string,
    url: string | (() => string),
    headers: Headers,
    bytes: Uint8Array | null,
    options: BufferedRequestOptions = {},
  ) {
    this.method = method;
    this.#url = url;
    this.headers = headers;
    this.#bytes = bytes;
    this.#signal = options.signal;
    this.#clientAddress = options.clientAddress;
  }

  /**
   * The client address (see `clientAddressOf` of `@gatehousejs/core`), served from here rather than
   * set on each request with `setClientAddress` (a property definition per request is measurable).
   */
  get [CLIENT_ADDRESS](): string | undefined {
    if (typeof this.#clientAddress === 'function') this.#clientAddress = this.#clientAddress() || undefined;
    return this.#clientAddress || undefined;
  }

  /** The absolute public URL. */
  get url(): string {
    if (typeof this.#url === 'function') this.#url = this.#url();
    return this.#url;
  }

  get body(): ReadableStream<Uint8Array<ArrayBuffer>> | null {
    if (this.#bytes === null && this.#real === undefined) return null;
    return this.#materialize().body;
  }

  get bodyUsed(): boolean {
    return this.#real ? this.#real.bodyUsed : this.#consumed;
  }

  get signal(): AbortSignal {
    if (typeof this.#signal === 'function') this.#signal = this.#signal();
    return this.#signal ?? this.#materialize().signal;
  }

  text(): Promise<string> {
    if (this.#real) return this.#real.text();
    // Fetch's "UTF-8 decode": a leading BOM is dropped, invalid sequences become U+FFFD.
    return this.#take((bytes) => new TextDecoder().decode(bytes));
  }

  arrayBuffer(): Promise<ArrayBuffer> {
    if (this.#real) return this.#real.arrayBuffer();
    return this.#take((bytes) => copy(bytes).buffer);
  }

  bytes(): Promise<Uint8Array<ArrayBuffer>> {
    if (this.#real) return this.#real.bytes();
    return this.#take(copy);
  }

  json(): Promise<unknown> {
    if (this.#real) return this.#real.json();
    return this.#take((bytes) => JSON.parse(new TextDecoder().decode(bytes)));
  }

  blob(): Promise<Blob> {
    return this.#materialize().blob();
  }

  formData(): Promise<FormData> {
    return this.#materialize().formData();
  }

  clone(): Request {
    const copy = this.#materialize().clone();
    setClientAddress(copy, this[CLIENT_ADDRESS]);
    return copy;
  }

  get cache(): RequestCache {
    return this.#materialize().cache;
  }
  get credentials(): RequestCredentials {
    return this.#materialize().credentials;
  }
  get destination(): RequestDestination {
    return this.#materialize().destination;
  }
  get integrity(): string {
    return this.#materialize().integrity;
  }
  get keepalive(): boolean {
    return this.#materialize().keepalive;
  }
  get mode(): RequestMode {
    return this.#materialize().mode;
  }
  get redirect(): RequestRedirect {
    return this.#materialize().redirect;
  }
  get referrer(): string {
    return this.#materialize().referrer;
  }
  get referrerPolicy(): ReferrerPolicy {
    return this.#materialize().referrerPolicy;
  }
  get duplex(): 'half' {
    return 'half';
  }

  get [Symbol.toStringTag](): string {
    return 'Request';
  }

  /** The real `Request` handed to host code (see `hostRequest`), with the client address attached. */
  [HOST_REQUEST](): Request {
    const fresh = this.#real === undefined;
    const real = this.#materialize();
    if (fresh) setClientAddress(real, this[CLIENT_ADDRESS]);
    return real;
  }

  /**
   * The body bytes themselves, for Gatehouse's own reader (`bodyText`): no promise and no copy
   * (it only decodes them). The body counts as read from then on, as after `text()`.
   */
  [BUFFERED_BODY](): Uint8Array | undefined {
    if (this.#real !== undefined || this.#consumed) return undefined;
    if (this.#bytes === null) return EMPTY;
    this.#consumed = true;
    return this.#bytes;
  }

  /** Reads the body once, as Fetch does: a second read is refused with a `TypeError`. */
  #take<T>(read: (bytes: Uint8Array) => T): Promise<T> {
    // Without a body there is nothing to use up: every read gives the empty body.
    if (this.#bytes === null) return settle(read, EMPTY);
    if (this.#consumed)
      return Promise.reject(new TypeError('Body is unusable: the body has already been read.'));
    this.#consumed = true;
    return settle(read, this.#bytes);
  }

  /** The real `Request` that answers everything not served from memory, built once. */
  #materialize(): Request {
    if (this.#real) return this.#real;
    const headers = this.headers;
    // Pairs, not a `Headers`: copied once, and by every runtime alike (Bun copies a `Headers`
    // argument from its internal list, which only a native `Headers` has).
    const init: RequestInit & { duplex?: 'half' } = {
      method: this.method,
      headers: headers instanceof RawHeaders ? headers.pairs() : headers,
    };
    if (this.#signal) init.signal = this.signal;
    const forbidden = !fetchAcceptsMethod(this.method);
    // `new Request()` refuses `TRACE` and other forbidden or malformed methods (Fetch §2.2.1), which
    // Node's parser delivers: the real request is built as a body-less `GET` and reports the
    // method received, so host code sees what the client sent and nothing throws.
    if (forbidden) init.method = 'GET';
    else if (this.#bytes !== null) init.body = this.#bytes as Uint8Array<ArrayBuffer>;
    const real = new Request(this.url, init);
    if (forbidden) Object.defineProperty(real, 'method', { value: this.method, enumerable: true });
    if (this.#consumed) {
      // Keep "already read" true of the real body: start reading it (which disturbs it) and drop it.
      real.arrayBuffer().catch(() => {});
    }
    this.#real = real;
    return real;
  }
}

const EMPTY = new Uint8Array(0);

/** `read(bytes)` as a promise: a throw (bad JSON) becomes a rejection, as with Fetch. */
function settle<T>(read: (bytes: Uint8Array) => T, bytes: Uint8Array): Promise<T> {
  try {
    return Promise.resolve(read(bytes));
  } catch (error) {
    return Promise.reject(error);
  }
}

function copy(bytes: Uint8Array): Uint8Array<ArrayBuffer> {
  const out = new Uint8Array(bytes.byteLength);
  out.set(bytes);
  return out;
}
