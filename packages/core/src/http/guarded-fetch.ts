import type { OutboundFetchErrorCode } from '../error-codes.js';
import { type AddressPolicy, isIpLiteral, isLoopbackHost, refusedAddressReason } from './ip-address.js';

/**
 * Outbound requests to URLs a client chose (a client ID metadata document's URL is its
 * `client_id`, which any unauthenticated request can name; a `private_key_jwt` client's
 * `jwks_uri`): the checks that keep them from becoming a server-side request forgery
 * (draft-ietf-oauth-client-id-metadata-document §8.6 "SSRF", RFC 9700 §4.13), whatever transport
 * carries them. The one outbound path of the core: nothing else fetches.
 *
 * What is checked where:
 * - here, on every runtime: https only (http only to a loopback host, and only when the policy
 *   allows loopback), no credentials in the URL, an IP-literal host must be a public unicast
 *   address, redirects are never followed (a 3xx is a refusal, so a public URL cannot bounce the
 *   request to an internal one), one deadline for the whole exchange, a size cap on the body (a
 *   declared `Content-Length` beyond it is refused before reading, an undeclared one is counted);
 * - by the {@link OutboundFetch} transport: the addresses a DNS name resolves to. The main entry
 *   cannot resolve names (it imports no `node:` module), so its default transport is the
 *   runtime's `fetch`, which relies on the platform's resolver and egress rules (a Cloudflare
 *   Worker cannot reach private networks at all). On Node.js, pass `addressCheckingFetch()` of
 *   `@gatehousejs/core/node`: it checks every resolved address at connection time, so DNS
 *   rebinding between a check and the connection is impossible.
 */

/** One outbound request, as handed to the transport: a GET, or a form POST. */
export interface OutboundRequest {
  readonly url: URL;
  /** `GET` when absent; `POST` carries {@link body} (a token introspection, RFC 7662 §2.1). */
  readonly method?: 'GET' | 'POST';
  /** Header fields to send (`Accept`; with a body, its `Content-Type`, and any credentials). */
  readonly headers: Readonly<Record<string, string>>;
  /** The body of a `POST`. */
  readonly body?: string;
  /** Aborted when the deadline passes: the transport must stop connecting or reading then. */
  readonly signal: AbortSignal;
  /** Which addresses the transport may connect to, after resolving the host name. */
  readonly policy: AddressPolicy;
}

/**
 * Carries an {@link OutboundRequest}: a GET (or POST) that must not follow redirects (answer the
 * 3xx itself) and must refuse, by rejecting, to connect to an address the policy refuses.
 */
export type OutboundFetch = (request: OutboundRequest) => Promise<Response>;

/** The runtime's `fetch`, redirects not followed; resolution and egress are the platform's. */
export const runtimeFetch: OutboundFetch = ({ url, method = 'GET', headers, body, signal }) =>
  fetch(url, { method, headers, signal, redirect: 'manual', ...(body === undefined ? {} : { body }) });

/**
 * The policy of URLs the host configured (a resource server's JWKS and introspection endpoint),
 * never named by a request: any address (a private network is fine, the host chose it), over
 * https or http to a loopback host (keys and secrets must not cross a network in the clear).
 */
export const HOST_CONFIGURED_URL_POLICY: AddressPolicy = { allowLoopback: true, allowAnyAddress: true };

/** Limits of {@link guardedFetch}. */
export interface GuardedFetchOptions {
  readonly policy: AddressPolicy;
  readonly transport: OutboundFetch;
  /** Largest body accepted, in bytes. */
  readonly maxBytes: number;
  /** Deadline for the whole exchange (connection, headers and body), in milliseconds. */
  readonly timeoutMs: number;
  /** The `Accept` field. */
  readonly accept: string;
  /**
   * A form POST instead of a GET: its `application/x-www-form-urlencoded` body and further header
   * fields (`Authorization`).
   */
  readonly post?: { readonly form: URLSearchParams; readonly headers?: Readonly<Record<string, string>> };
  /**
   * The statuses that count as an answer (its body is read); any other is `ERR_FETCH_STATUS`.
   * Default `[200]`. (A back-channel logout request is answered 200 or 204.)
   */
  readonly statuses?: readonly number[];
}

/** A fetched 200 answer, its body read whole. */
export interface FetchedDocument {
  readonly headers: Headers;
  readonly body: string;
}

/**
 * An outbound request was refused or failed; `message` says why, fit for an `error_description`,
 * and {@link code} is stable.
 */
export class OutboundFetchError extends Error {
  override readonly name = 'OutboundFetchError';
  /** Why, stable across releases (`ERR_FETCH_*` of `ERROR_CODES`). */
  readonly code: OutboundFetchErrorCode;
  /** The HTTP status of an answer other than 200 (`ERR_FETCH_STATUS`). */
  readonly status?: number;

  constructor(
    message: string,
    code: OutboundFetchErrorCode,
    options?: { readonly cause?: unknown; readonly status?: number },
  ) {
    super(message, options);
    this.code = code;
    if (options?.status !== undefined) this.status = options.status;
  }
}

/** Why `url` may not be fetched under `policy`, or `undefined` when the checks that need no DNS pass. */
export function refusedUrlReason(url: URL, policy: AddressPolicy): string | undefined {
  if (url.username !== '' || url.password !== '') return 'the URL carries credentials';
  if (url.protocol === 'http:') {
    if (!policy.allowLoopback || !isLoopbackHost(url.hostname)) return 'the URL is not https';
  } else if (url.protocol !== 'https:') return 'the URL is not https';
  if (isIpLiteral(url.hostname)) {
    const reason = refusedAddressReason(url.hostname, policy);
    if (reason) return `its host cannot be fetched: ${reason}`;
  } else if (isLoopbackHost(url.hostname) && !policy.allowLoopback) {
    return 'its host cannot be fetched: it is a loopback address';
  }
  return undefined;
}

/**
 * GETs (or POSTs, with `post`) `target` under the checks above; throws {@link OutboundFetchError}
 * with the reason.
 */
export async function guardedFetch(target: URL, options: GuardedFetchOptions): Promise<FetchedDocument> {
  const refused = refusedUrlReason(target, options.policy);
  if (refused) throw new OutboundFetchError(refused, 'ERR_FETCH_REFUSED_URL');
  const deadline = new AbortController();
  const timer = setTimeout(() => deadline.abort(), options.timeoutMs);
  try {
    let response: Response;
    try {
      const post = options.post;
      response = await options.transport({
        url: target,
        headers: post
          ? {
              ...post.headers,
              Accept: options.accept,
              'Content-Type': 'application/x-www-form-urlencoded',
            }
          : { Accept: options.accept },
        ...(post ? { method: 'POST' as const, body: post.form.toString() } : {}),
        signal: deadline.signal,
        policy: options.policy,
      });
    } catch (error) {
      if (deadline.signal.aborted) throw timedOut(options.timeoutMs);
      // A transport's own refusal (an address the policy refuses, found by resolving) keeps its code.
      if (error instanceof OutboundFetchError)
        throw new OutboundFetchError(error.message, error.code, { cause: error });
      throw new OutboundFetchError('it could not be fetched', 'ERR_FETCH_FAILED', { cause: error });
    }
    if (response.type === 'opaqueredirect' || (response.status >= 300 && response.status < 400)) {
      await response.body?.cancel().catch(() => {});
      throw new OutboundFetchError(
        'it answered with a redirect, and redirects are not followed',
        'ERR_FETCH_REDIRECT',
      );
    }
    const statuses = options.statuses ?? OK;
    if (!statuses.includes(response.status)) {
      await response.body?.cancel().catch(() => {});
      throw new OutboundFetchError(
        `it answered HTTP ${response.status} instead of ${statuses.join(' or ')}`,
        'ERR_FETCH_STATUS',
        { status: response.status },
      );
    }
    const body = await readCapped(response, options.maxBytes, deadline.signal, options.timeoutMs);
    return { headers: response.headers, body };
  } finally {
    clearTimeout(timer);
  }
}

const OK: readonly number[] = [200];

function timedOut(timeoutMs: number): OutboundFetchError {
  return new OutboundFetchError(`it did not answer within ${timeoutMs} ms`, 'ERR_FETCH_TIMEOUT');
}

/** The body as UTF-8 text, refused beyond `maxBytes` (declared or counted) or after the deadline. */
async function readCapped(
  response: Response,
  maxBytes: number,
  signal: AbortSignal,
  timeoutMs: number,
): Promise<string> {
  const tooLarge = () => new OutboundFetchError(`its body exceeds ${maxBytes} bytes`, 'ERR_FETCH_TOO_LARGE');
  const declared = response.headers.get('content-length');
  if (declared !== null && Number(declared) > maxBytes) {
    await response.body?.cancel().catch(() => {});
    throw tooLarge();
  }
  if (!response.body) return '';
  const reader = response.body.getReader();
  const aborted = new Promise<never>((_, reject) => {
    // It did answer; its body did not arrive in time (a slow or dripping sender).
    const fail = () =>
      reject(
        new OutboundFetchError(`its body did not arrive in full within ${timeoutMs} ms`, 'ERR_FETCH_TIMEOUT'),
      );
    if (signal.aborted) fail();
    else signal.addEventListener('abort', fail, { once: true });
  });
  aborted.catch(() => {});
  const chunks: Uint8Array[] = [];
  let total = 0;
  try {
    for (;;) {
      const { done, value } = await Promise.race([reader.read(), aborted]);
      if (done) break;
      total += value.byteLength;
      if (total > maxBytes) throw tooLarge();
      chunks.push(value);
    }
  } catch (error) {
    await reader.cancel().catch(() => {});
    if (error instanceof OutboundFetchError) throw error;
    throw new OutboundFetchError('its body could not be read', 'ERR_FETCH_FAILED', { cause: error });
  }
  const bytes = new Uint8Array(total);
  let offset = 0;
  for (const chunk of chunks) {
    bytes.set(chunk, offset);
    offset += chunk.byteLength;
  }
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch {
    throw new OutboundFetchError('its body is not UTF-8', 'ERR_FETCH_FAILED');
  }
}

/** Limits of {@link guardedPost}. */
export interface GuardedPostOptions {
  readonly policy: AddressPolicy;
  readonly transport: OutboundFetch;
  /** Deadline for the whole exchange, in milliseconds. */
  readonly timeoutMs: number;
  /** The body's media type (`application/json`, `application/x-www-form-urlencoded`). */
  readonly contentType: string;
  readonly body: string;
  /** Further header fields (`Authorization`). */
  readonly headers?: Readonly<Record<string, string>>;
}

/**
 * POSTs `body` to `target` under the checks of {@link guardedFetch} (the URL's, no redirects, one
 * deadline), for a notification whose answer carries nothing (a CIBA ping callback, a logout
 * token): resolves with the 2xx status, its body discarded unread; throws
 * {@link OutboundFetchError} for a refusal, a failure, a redirect or another status.
 */
export async function guardedPost(target: URL, options: GuardedPostOptions): Promise<number> {
  const refused = refusedUrlReason(target, options.policy);
  if (refused) throw new OutboundFetchError(refused, 'ERR_FETCH_REFUSED_URL');
  const deadline = new AbortController();
  const timer = setTimeout(() => deadline.abort(), options.timeoutMs);
  try {
    let response: Response;
    try {
      response = await options.transport({
        url: target,
        method: 'POST',
        headers: { ...options.headers, 'Content-Type': options.contentType },
        body: options.body,
        signal: deadline.signal,
        policy: options.policy,
      });
    } catch (error) {
      if (deadline.signal.aborted) throw timedOut(options.timeoutMs);
      if (error instanceof OutboundFetchError)
        throw new OutboundFetchError(error.message, error.code, { cause: error });
      throw new OutboundFetchError('it could not be reached', 'ERR_FETCH_FAILED', { cause: error });
    }
    await response.body?.cancel().catch(() => {});
    if (response.type === 'opaqueredirect' || (response.status >= 300 && response.status < 400))
      throw new OutboundFetchError(
        'it answered with a redirect, and redirects are not followed',
        'ERR_FETCH_REDIRECT',
      );
    if (response.status < 200 || response.status >= 300)
      throw new OutboundFetchError(`it answered HTTP ${response.status}`, 'ERR_FETCH_STATUS', {
        status: response.status,
      });
    return response.status;
  } finally {
    clearTimeout(timer);
  }
}
