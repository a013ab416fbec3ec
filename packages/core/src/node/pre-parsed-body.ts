/** Bodies a framework's parser already consumed, re-encoded for the Web `Request`. */

/** A body some middleware already read from the stream (`express.json()`, a Koa body parser, …). */
export interface PreParsedBody {
  /** What the parser produced (`req.body` / `ctx.request.body`). */
  readonly value: unknown;
  /** The raw bytes, if the parser kept them (`req.rawBody` / `ctx.request.rawBody`). Preferred. */
  readonly raw?: Uint8Array | string;
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
