/** Headers every response carrying tokens or personal data must have (RFC 6749 §5.1). */
export const NO_STORE_HEADERS: Readonly<Record<string, string>> = {
  'Cache-Control': 'no-store',
  Pragma: 'no-cache',
};

/** A JSON response. */
export function jsonResponse(body: unknown, init: { status?: number; headers?: HeadersInit } = {}): Response {
  const headers = new Headers(init.headers);
  if (!headers.has('Content-Type')) headers.set('Content-Type', 'application/json;charset=UTF-8');
  return new Response(JSON.stringify(body), { status: init.status ?? 200, headers });
}

/** A JSON response that must never be cached: token sets, introspection, userinfo. */
export function noStoreJson(body: unknown, init: { status?: number; headers?: HeadersInit } = {}): Response {
  const headers = new Headers(init.headers);
  for (const [name, value] of Object.entries(NO_STORE_HEADERS)) headers.set(name, value);
  return jsonResponse(body, { status: init.status ?? 200, headers });
}
