import { base64url, utf8 } from './encoding.js';
import type { SigningAlgorithm } from './keys.js';
import { type NativeCrypto, nativeCrypto } from './native-crypto.js';

/** Signs a JWS signing input (`header.payload`, RFC 7515 §5.1) and returns the base64url signature. */
export type JwsSigner = (signingInput: string) => Promise<string>;

/**
 * A signer bound to one private key, built once per instance so that no request pays for key
 * handling. ES256 signatures are the raw `r || s` form JWS requires (RFC 7518 §3.4), which is what
 * Web Crypto produces and what Node produces with `dsaEncoding: 'ieee-p1363'`; EdDSA is Ed25519
 * (RFC 8037 §3.1). With native crypto the signature is computed synchronously, skipping Web
 * Crypto's thread-pool hop; otherwise Web Crypto signs.
 */
export function createJwsSigner(
  algorithm: SigningAlgorithm,
  key: CryptoKey,
  native: NativeCrypto | undefined = nativeCrypto,
): JwsSigner {
  if (native) {
    let keyObject: unknown;
    try {
      keyObject = native.KeyObject.from(key);
    } catch {
      keyObject = undefined;
    }
    if (keyObject !== undefined) {
      const options = algorithm === 'ES256' ? { key: keyObject, dsaEncoding: 'ieee-p1363' } : keyObject;
      const digest = algorithm === 'ES256' ? 'sha256' : null;
      return async (signingInput) => base64url(native.sign(digest, utf8(signingInput), options));
    }
  }
  const params = algorithm === 'ES256' ? { name: 'ECDSA', hash: 'SHA-256' } : { name: 'Ed25519' };
  return async (signingInput) =>
    base64url(new Uint8Array(await crypto.subtle.sign(params, key, utf8(signingInput))));
}
