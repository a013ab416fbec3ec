import { base64url, utf8 } from '../crypto/encoding.js';
import { type NativeCrypto, nativeCrypto } from '../crypto/native-crypto.js';

/**
 * JWS algorithms Gatehouse signs with: access tokens with the instance's `algorithm` (ES256 by
 * default), ID tokens with each client's `id_token_signed_response_alg` (RS256 by default, as
 * OpenID Connect Core §3.1.3.7 requires).
 */
export type SigningAlgorithm = 'ES256' | 'EdDSA' | 'RS256';

/** The Web Crypto `sign` parameters of each algorithm. */
const WEB_CRYPTO_PARAMS: Readonly<Record<SigningAlgorithm, AlgorithmIdentifier | EcdsaParams>> = {
  ES256: { name: 'ECDSA', hash: 'SHA-256' },
  EdDSA: { name: 'Ed25519' },
  RS256: { name: 'RSASSA-PKCS1-v1_5' },
};

/** Signs a JWS signing input (`header.payload`, RFC 7515 §5.1) and returns the base64url signature. */
export type JwsSigner = (signingInput: string) => Promise<string>;

/**
 * A signer bound to one private key, built once per instance so that no request pays for key
 * handling. ES256 signatures are the raw `r || s` form JWS requires (RFC 7518 §3.4), which is what
 * Web Crypto produces and what Node produces with `dsaEncoding: 'ieee-p1363'`; EdDSA is Ed25519
 * (RFC 8037 §3.1); RS256 is RSASSA-PKCS1-v1_5 with SHA-256 (RFC 7518 §3.3), Node's default padding
 * for an RSA key. Otherwise Web Crypto signs with `key`.
 *
 * With native crypto the signature is computed on Node's thread pool (`crypto.sign` with a
 * callback), not on the event loop: every token request signs once (an ID token twice), and on
 * the loop an ES256 signature took ~50 µs of a ~240 µs client_credentials request, an RS256 one
 * ~260 µs. Off the loop, the loop only dispatches the job, and the signature runs in parallel with
 * other requests: on two cores, client_credentials went from 0.48 to 0.64 of the bare route's
 * throughput, and the refresh grant from 0.46 to 0.56 (bench/RESULTS.md, run O). Web Crypto also
 * signs off the loop, but its JavaScript argument handling costs the loop more (0.57).
 *
 * The native key is made from the private JWK, not from `key`: turning a non-extractable
 * `CryptoKey` into a `KeyObject` is deprecated (Node DEP0204; Bun prints the warning at start).
 */
export function createJwsSigner(
  algorithm: SigningAlgorithm,
  key: CryptoKey,
  jwk: object,
  native: NativeCrypto | undefined = nativeCrypto,
): JwsSigner {
  if (native) {
    let keyObject: unknown;
    try {
      keyObject = native.createPrivateKey({ key: jwk, format: 'jwk' });
    } catch {
      keyObject = undefined;
    }
    if (keyObject !== undefined) {
      const options = algorithm === 'ES256' ? { key: keyObject, dsaEncoding: 'ieee-p1363' } : keyObject;
      const digest = algorithm === 'EdDSA' ? null : 'sha256';
      return (signingInput) => signOffTheLoop(native, digest, utf8(signingInput), options).then(base64url);
    }
  }
  const params = WEB_CRYPTO_PARAMS[algorithm];
  return async (signingInput) =>
    base64url(new Uint8Array(await crypto.subtle.sign(params, key, utf8(signingInput))));
}

/**
 * `crypto.sign` in its callback form, as a promise. A runtime whose `sign` returns the signature
 * instead of calling back (a partial `node:crypto` emulation) still settles the promise, and an
 * error thrown at the call rejects it.
 */
function signOffTheLoop(
  native: NativeCrypto,
  digest: 'sha256' | null,
  data: Uint8Array,
  key: unknown,
): Promise<Uint8Array> {
  return new Promise((resolve, reject) => {
    const returned = native.sign(digest, data, key, (error, signature) =>
      error ? reject(error) : resolve(signature),
    );
    if (returned !== undefined) resolve(returned);
  });
}
