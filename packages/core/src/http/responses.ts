import { Reply } from './reply.js';

/** Headers every response carrying tokens or personal data must have (RFC 6749 §5.1). */
export const NO_STORE_HEADERS: Readonly<Record<string, string>> = {
  'Cache-Control': 'no-store',
  Pragma: 'no-cache',
};

/** A JSON answer. */
export function jsonResponse(body: unknown, init: { status?: number; headers?: HeadersInit } = {}): Reply {
  return jsonReply(body, new Headers(init.headers), init.status);
}

/** A JSON answer that must never be cached: token sets, introspection, userinfo. */
export function noStoreJson(body: unknown, init: { status?: number; headers?: HeadersInit } = {}): Reply {
  const headers = new Headers(init.headers);
  for (const name in NO_STORE_HEADERS) headers.set(name, NO_STORE_HEADERS[name]!);
  return jsonReply(body, headers, init.status);
}

/** The reply itself, on headers the caller owns (JSON content type unless one is set). */
function jsonReply(body: unknown, headers: Headers, status = 200): Reply {
  if (!headers.has('Content-Type')) headers.set('Content-Type', 'application/json;charset=UTF-8');
  return new Reply(status, headers, JSON.stringify(body));
}
