import { ProtocolError } from '../errors.js';

/** Reads the request body as UTF-8 text, refusing more than `maxBytes` with 413. */
export async function readBodyText(request: Request, maxBytes: number): Promise<string> {
  const declared = request.headers.get('content-length');
  if (declared !== null && Number(declared) > maxBytes) throw payloadTooLarge(maxBytes);
  if (!request.body) return '';
  if (request.bodyUsed) {
    // A host middleware consumed the stream before Gatehouse: a set-up problem, answered without a 5xx.
    throw new ProtocolError(
      'invalid_request',
      'The request body was already read before Gatehouse could read it.',
    );
  }
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
    throw new ProtocolError('invalid_request', 'The request body could not be read.', { cause: error });
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
    throw new ProtocolError('invalid_request', 'The request body is not valid UTF-8.');
  }
}

function payloadTooLarge(maxBytes: number): ProtocolError {
  return new ProtocolError('invalid_request', `The request body exceeds ${maxBytes} bytes.`, { status: 413 });
}
