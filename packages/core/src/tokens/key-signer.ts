import type { JWK } from 'jose';
import { base64url, utf8 } from '../crypto/encoding.js';
import { ConfigurationError, oauthError } from '../errors.js';
import type { JwsSigner, SigningAlgorithm } from './jws-signer.js';

/**
 * A signing key whose private half lives elsewhere: a KMS, an HSM, Vault transit, another process.
 * Gatehouse hands it the bytes to sign and publishes its public JWK; it never sees the private key.
 * Listed in the `signers` option, it signs everything of its algorithm instead of `keys`.
 */
export interface KeySigner {
  /** The public JWK (with a `kid`, no private members): published in the JWKS, used to verify. */
  readonly publicJwk: JWK & { readonly kid: string };
  /**
   * Signs `data`, the JWS signing input (RFC 7515 §5.1), with `algorithm` (the algorithm of
   * `publicJwk`): the raw JWS signature bytes — for ES256 the 64-byte `r || s` (RFC 7518 §3.4), not
   * the DER that most KMS APIs return (convert it), for RS256 the PKCS #1 v1.5 signature with
   * SHA-256, for EdDSA the 64-byte Ed25519 signature. A rejection answers the request 503.
   */
  sign(algorithm: SigningAlgorithm, data: Uint8Array): Promise<Uint8Array>;
}

/**
 * Checks the shape of a `signers` entry; throws `ConfigurationError` naming it. (keys.ts checks its
 * key: type, algorithm, no private member.)
 */
export function checkKeySigner(signer: KeySigner, index: number): void {
  const option = `signers[${index}]`;
  if (
    !signer ||
    typeof signer.sign !== 'function' ||
    typeof signer.publicJwk !== 'object' ||
    signer.publicJwk === null
  )
    throw new ConfigurationError(`${option}: expected a key signer ({ publicJwk, sign(algorithm, data) }).`, {
      code: 'ERR_CONFIG_INVALID_KEY',
      option,
    });
  if (typeof signer.publicJwk.kid !== 'string' || signer.publicJwk.kid === '')
    throw new ConfigurationError(`${option}: publicJwk needs a "kid".`, {
      code: 'ERR_CONFIG_INVALID_KEY',
      option,
    });
}

/** Signature lengths that are fixed (ES256 and EdDSA: 64 bytes), to catch a DER-encoded ECDSA signature. */
const FIXED_LENGTH: Partial<Record<SigningAlgorithm, number>> = { ES256: 64, EdDSA: 64 };

/** The instance's {@link JwsSigner} of a key signer: base64url of what it returns, checked. */
export function remoteJwsSigner(signer: KeySigner, algorithm: SigningAlgorithm): JwsSigner {
  return async (signingInput) => {
    let signature: Uint8Array;
    try {
      signature = await signer.sign(algorithm, utf8(signingInput));
    } catch (cause) {
      throw oauthError('temporarily_unavailable', 'The signing service is unavailable; try again shortly.', {
        cause,
      });
    }
    const length = FIXED_LENGTH[algorithm];
    if (!(signature instanceof Uint8Array) || (length !== undefined && signature.length !== length)) {
      throw oauthError('temporarily_unavailable', 'The signing service is unavailable; try again shortly.', {
        cause: new TypeError(
          `signer "${signer.publicJwk.kid}" returned ${signature instanceof Uint8Array ? `${signature.length} bytes` : 'no bytes'}` +
            (length
              ? `; ${algorithm} needs the raw ${length}-byte signature (convert a DER ECDSA signature to r || s)`
              : ''),
        ),
      });
    }
    return base64url(signature);
  };
}
