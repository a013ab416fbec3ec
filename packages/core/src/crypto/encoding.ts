const encoder = new TextEncoder();

/** UTF-8 bytes of a string. */
export function utf8(text: string): Uint8Array<ArrayBuffer> {
  return encoder.encode(text);
}

interface NativeBuffer {
  from(
    buffer: ArrayBufferLike,
    byteOffset: number,
    length: number,
  ): { toString(encoding: 'base64url'): string };
}

/**
 * The runtime's `Buffer` when it has one (Node, Bun, Deno) and it speaks base64url; its encoder is
 * native code, several times faster than building a binary string for `btoa`. A capability probe,
 * like `native-crypto.ts`, so the main entry imports nothing runtime-specific.
 */
function detectBuffer(): NativeBuffer | undefined {
  const candidate = (globalThis as { Buffer?: NativeBuffer }).Buffer;
  try {
    if (candidate && candidate.from(new Uint8Array([251, 255]).buffer, 0, 2).toString('base64url') === '-_8')
      return candidate;
  } catch {
    // No usable Buffer: the portable encoder below is used.
  }
  return undefined;
}

const nativeBuffer = detectBuffer();

/** Unpadded base64url (RFC 4648 §5) of bytes, with the portable encoder (any runtime). */
export function portableBase64url(bytes: Uint8Array): string {
  let binary = '';
  for (let i = 0; i < bytes.length; i++) binary += String.fromCharCode(bytes[i]!);
  return btoa(binary).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
}

/** Unpadded base64url (RFC 4648 §5) of bytes. */
export function base64url(bytes: Uint8Array): string {
  if (nativeBuffer)
    return nativeBuffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('base64url');
  return portableBase64url(bytes);
}
