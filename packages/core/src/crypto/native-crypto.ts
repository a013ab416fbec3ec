/**
 * The synchronous subset of Node's crypto module that Gatehouse uses for speed when the runtime
 * offers it. Typed here (not imported) because the main entry must not import `node:` modules.
 */
export interface NativeCrypto {
  createHash(algorithm: 'sha256' | 'sha512'): { update(data: string): { digest(): Uint8Array } };
  /** One-shot digest (Node ≥ 20.12): about half the cost of `createHash` for short inputs. */
  hash?(algorithm: 'sha256', data: string, outputEncoding: 'buffer'): Uint8Array;
  hash?(algorithm: 'sha256', data: string, outputEncoding: 'base64url'): string;
  /**
   * `crypto.sign` in its callback form: Node computes the signature on its thread pool and calls
   * back. A runtime that ignores the callback and returns the signature is handled too (see
   * `jws-signer.ts`).
   */
  sign(
    algorithm: 'sha256' | null,
    data: Uint8Array,
    key: unknown,
    callback: (error: Error | null, signature: Uint8Array) => void,
  ): Uint8Array | undefined;
  /** A private key object from a JWK (the signing key is built from the JWK, see `jws-signer.ts`). */
  createPrivateKey(key: { key: object; format: 'jwk' }): unknown;
}

interface ProcessWithBuiltins {
  getBuiltinModule?: (id: string) => unknown;
}

/**
 * Node's crypto module when the runtime exposes it through `process.getBuiltinModule` (Node ≥ 20.16,
 * Bun, Deno 2), else `undefined` (browsers, edge workers), where Web Crypto is used instead.
 *
 * Why: Web Crypto is asynchronous by specification, and Node runs each call as a job on its thread
 * pool behind a layer of argument normalisation in JavaScript. For a digest of the tiny inputs of a
 * request (a 43-character secret) the hop costs far more than the work: ~12 µs through
 * `crypto.subtle` and ~0.5 µs synchronously. A signature is the other way round: it is worth
 * moving off the event loop, and `crypto.sign` with a callback does that for a fraction of Web
 * Crypto's cost on the loop (see `jws-signer.ts`). Detection is a capability probe, not an import,
 * so bundlers for other runtimes see nothing to resolve. This is an immutable fact about the
 * runtime, not instance state.
 */
export function detectNativeCrypto(): NativeCrypto | undefined {
  try {
    const proc = (globalThis as { process?: ProcessWithBuiltins }).process;
    const module = proc?.getBuiltinModule?.('node:crypto') as Partial<NativeCrypto> | undefined;
    if (
      typeof module?.createHash === 'function' &&
      typeof module.sign === 'function' &&
      typeof module.createPrivateKey === 'function'
    ) {
      return module as NativeCrypto;
    }
  } catch {
    // A runtime that forbids the probe simply gets Web Crypto.
  }
  return undefined;
}

/** The runtime's native crypto, probed once at load. */
export const nativeCrypto: NativeCrypto | undefined = detectNativeCrypto();
