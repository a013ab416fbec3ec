import { Reply } from './reply.js';
import { ReplyHeaders, replyFields, replyHeaders } from './reply-headers.js';

const JSON_TYPE = 'application/json;charset=UTF-8';

/**
 * Marks an answer as never to be stored: every answer carrying tokens, codes, personal data or a
 * session change (RFC 6749 §5.1, RFC 9111 §5.2.2.5; `Pragma` for HTTP/1.0 caches). The one place
 * that sets these headers.
 */
export function noStore(headers: Headers): Headers {
  headers.set('Cache-Control', 'no-store');
  headers.set('Pragma', 'no-cache');
  return headers;
}

/** A JSON answer. */
export function jsonResponse(body: unknown, init: { status?: number; headers?: HeadersInit } = {}): Reply {
  return jsonReply(body, replyHeaders(init.headers), init.status);
}

/** A JSON answer that must never be cached: token sets, introspection, userinfo, errors. */
export function noStoreJson(body: unknown, init: { status?: number; headers?: HeadersInit } = {}): Reply {
  return jsonReply(body, noStore(replyHeaders(init.headers)), init.status);
}

/**
 * {@link noStoreJson} for a body already serialised: `text` must be a JSON text (the caller
 * vouches for it, see `tokenResponse`).
 */
export function noStoreJsonText(text: string): Reply {
  return new Reply(200, new ReplyHeaders(NO_STORE_JSON), text);
}

/**
 * The fields of a never-stored JSON answer as `ReplyHeaders` lists them, set once by {@link noStore}
 * and {@link withJsonType}: each token response starts from a copy rather than setting them.
 */
const NO_STORE_JSON: readonly string[] = replyFields(withJsonType(noStore(new ReplyHeaders())))!;

/** An answer without a body that must never be cached: redirects of the browser flow, 204s. */
export function noStoreEmpty(status: number, headers: HeadersInit): Reply {
  return new Reply(status, noStore(replyHeaders(headers)), null);
}

/** The reply itself, on headers the caller owns (JSON content type unless one is set). */
function jsonReply(body: unknown, headers: Headers, status = 200): Reply {
  return new Reply(status, withJsonType(headers), JSON.stringify(body));
}

function withJsonType(headers: Headers): Headers {
  if (!headers.has('Content-Type')) headers.set('Content-Type', JSON_TYPE);
  return headers;
}
