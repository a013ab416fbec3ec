import type { Awaitable } from '../awaitable.js';
import { oauthError, ProtocolError } from '../errors.js';

/**
 * One strict decoder for every body: `decode` without `stream` starts afresh each call (a failure
 * included, WHATWG Encoding §7.2), so sharing it carries nothing from one request to the next.
 */
const STRICT_UTF8 = new TextDecoder('utf-8', { fatal: true });

/** Reads the request body as UTF-8 text, refusing more than `maxBytes` with 413. */
export async function readBodyText(request: Request, maxBytes: number): Promise<string> {
  return bodyText(request, maxBytes);
}

/**
 * {@link readBodyText}, as the text itself when the body is already in memory (the Node bridge's
 * `BufferedRequest`): no promise and no copy of the bytes, which are only decoded. Throws (rather
 * than rejects) what it refuses at once; callers await it in an async function, where both are
 * the same.
 */
export function bodyText(request: Request, maxBytes: number): Awaitable<string> {
  const declared = request.headers.get('content-length');
  if (declared !== null && Number(declared) > maxBytes) throw payloadTooLarge(maxBytes);
  if (request.bodyUsed) {
    // A host middleware consumed the stream before Gatehouse: a set-up problem, answered without a 5xx.
    throw oauthError('invalid_request', 'The request body was already read before Gatehouse could read it.');
  }
  const buffered = bufferedBodyOf(request);
  if (buffered !== undefined) return decoded(buffered, maxBytes);
  return readStreamedText(request, declared, maxBytes);
}

async function readStreamedText(
  request: Request,
  declared: string | null,
  maxBytes: number,
): Promise<string> {
  const bytes = hasFramedLength(request, declared)
    ? await readWhole(request)
    : await readBounded(request, maxBytes);
  return decoded(bytes, maxBytes);
}

function decoded(bytes: Uint8Array, maxBytes: number): string {
  if (bytes.byteLength > maxBytes) throw payloadTooLarge(maxBytes);
  try {
    return STRICT_UTF8.decode(bytes);
  } catch {
    throw oauthError('invalid_request', 'The request body is not valid UTF-8.');
  }
}

/**
 * The key of a request's body bytes when they are in memory and unread (the Node bridge's
 * `BufferedRequest` answers it, and counts the body as read from then on). `Symbol.for`: the
 * bridge may come from another copy of this module (ESM and CJS builds).
 */
export const BUFFERED_BODY: unique symbol = Symbol.for('gatehouse.bufferedBody') as never;

/** What a request with its body in memory offers under {@link BUFFERED_BODY}. */
export interface BufferedBody {
  /** Takes the body (empty for none), or `undefined` when it is not held in memory (any more). */
  [BUFFERED_BODY](): Uint8Array | undefined;
}

function bufferedBodyOf(request: Request): Uint8Array | undefined {
  return (request as Request & Partial<BufferedBody>)[BUFFERED_BODY]?.();
}

/**
 * Whether the body's length is the declared `Content-Length` (RFC 9112 §6.3: no
 * `Transfer-Encoding`), which the HTTP server enforces, so it can be read whole without counting.
 * `arrayBuffer()` then takes the request's own fast path (e.g. a body the Node bridge already holds
 * in memory) instead of a reader loop over a stream.
 */
function hasFramedLength(request: Request, declared: string | null): boolean {
  return declared !== null && /^\d+$/.test(declared) && !request.headers.has('transfer-encoding');
}

async function readWhole(request: Request): Promise<Uint8Array> {
  try {
    return new Uint8Array(await request.arrayBuffer());
  } catch (error) {
    throw bodyCutShort(error);
  }
}

/**
 * The body stream failed before its end: the connection was closed or reset, or the server gave
 * up waiting for a body sent too slowly (Node's `requestTimeout`, a proxy's deadline). Nothing in
 * what arrived was wrong, so the answer says the body did not arrive rather than that it could not
 * be read (which reads like a malformed body); it rarely reaches the client, whose connection is
 * gone.
 */
function bodyCutShort(cause: unknown): ProtocolError {
  return oauthError(
    'invalid_request',
    'The request body did not arrive in full: the connection was closed, or timed out while the body was being sent.',
    { cause },
  );
}

/** Reads a body of unknown length chunk by chunk, giving up (413) once it exceeds `maxBytes`. */
async function readBounded(request: Request, maxBytes: number): Promise<Uint8Array> {
  if (!request.body) return new Uint8Array(0);
  const reader = request.body.getReader();
  const chunks: Uint8Array[] = [];
  let total = 0;
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      total += value.byteLength;
      if (total > maxBytes) {
        await reader.cancel().catch(() => {});
        throw payloadTooLarge(maxBytes);
      }
      chunks.push(value);
    }
  } catch (error) {
    if (error instanceof ProtocolError) throw error;
    throw bodyCutShort(error);
  }
  const bytes = new Uint8Array(total);
  let offset = 0;
  for (const chunk of chunks) {
    bytes.set(chunk, offset);
    offset += chunk.byteLength;
  }
  return bytes;
}

function payloadTooLarge(maxBytes: number): ProtocolError {
  return oauthError('payload_too_large', `The request body exceeds ${maxBytes} bytes.`);
}
