import { type CryptoKey, exportJWK, generateKeyPair, importJWK, type JWK } from 'jose';
import { ConfigurationError } from '../errors.js';
import { base64url, utf8 } from './encoding.js';
import { createJwsSigner, type JwsSigner } from './jws-signer.js';

/** JWS algorithms Gatehouse signs access tokens with. */
export type SigningAlgorithm = 'ES256' | 'EdDSA';

/** A private JWK as accepted in `options.keys` (with `kid`; `alg` optional). */
export type PrivateJwk = JWK & { readonly kid: string };

/** The instance's keys, imported once at creation. */
export interface KeySet {
  readonly algorithm: SigningAlgorithm;
  /** The first key: signs every new token. */
  readonly signingKey: CryptoKey;
  readonly signingKid: string;
  /**
   * The protected header of every access token (`alg`, `typ: at+jwt`, `kid`; RFC 9068 §2.1),
   * JSON-serialised and base64url-encoded once, since it never changes for a key.
   */
  readonly encodedHeader: string;
  /** Signs with {@link signingKey}, the fastest way the runtime allows. */
  readonly sign: JwsSigner;
  /** Every key by `kid`: all of them verify (so old tokens survive a key rotation). */
  readonly verificationKeys: ReadonlyMap<string, CryptoKey>;
  /** The public JWKS served at `{base}/oauth2/v1/keys`. */
  readonly publicJwks: { readonly keys: readonly JWK[] };
}

/**
 * Generates a private signing key as a JWK (with a random `kid`), for `options.keys`. Store it as a
 * secret (environment variable, secret manager); keep old keys after the new one while tokens they
 * signed may still be alive.
 */
export async function generateKeys(algorithm: SigningAlgorithm = 'ES256'): Promise<PrivateJwk> {
  const { privateKey } = await generateKeyPair(algorithm, {
    extractable: true,
    crv: algorithm === 'EdDSA' ? 'Ed25519' : undefined,
  });
  const jwk = await exportJWK(privateKey);
  const kid = crypto.randomUUID();
  return { ...jwk, kid, alg: algorithm, use: 'sig' };
}

const PRIVATE_MEMBERS = ['d', 'p', 'q', 'dp', 'dq', 'qi', 'oth', 'k'] as const;

function expectedKeyType(algorithm: SigningAlgorithm, jwk: JWK): boolean {
  return algorithm === 'ES256'
    ? jwk.kty === 'EC' && jwk.crv === 'P-256'
    : jwk.kty === 'OKP' && jwk.crv === 'Ed25519';
}

/** Checks `options.keys` without importing them; throws {@link ConfigurationError} with the reason. */
export function checkKeys(keys: readonly PrivateJwk[], algorithm: SigningAlgorithm): void {
  if (!Array.isArray(keys) || keys.length === 0) {
    throw new ConfigurationError('keys: at least one private JWK is required (see generateKeys()).');
  }
  const kids = new Set<string>();
  for (const [index, jwk] of keys.entries()) {
    if (typeof jwk?.kid !== 'string' || jwk.kid === '')
      throw new ConfigurationError(`keys[${index}]: a "kid" is required.`);
    if (kids.has(jwk.kid)) throw new ConfigurationError(`keys[${index}]: duplicate kid "${jwk.kid}".`);
    kids.add(jwk.kid);
    if (!expectedKeyType(algorithm, jwk)) {
      throw new ConfigurationError(
        `keys[${index}] ("${jwk.kid}"): not a ${algorithm === 'ES256' ? 'P-256 EC' : 'Ed25519 OKP'} key, as algorithm ${algorithm} requires.`,
      );
    }
    if (jwk.alg !== undefined && jwk.alg !== algorithm) {
      throw new ConfigurationError(
        `keys[${index}] ("${jwk.kid}"): alg "${jwk.alg}" differs from algorithm ${algorithm}.`,
      );
    }
  }
  if (typeof keys[0]!.d !== 'string')
    throw new ConfigurationError('keys[0]: the signing key must be a private JWK (with "d").');
}

/** Imports `options.keys` (checked by {@link checkKeys}). */
export async function importKeySet(
  keys: readonly PrivateJwk[],
  algorithm: SigningAlgorithm,
): Promise<KeySet> {
  checkKeys(keys, algorithm);
  const verificationKeys = new Map<string, CryptoKey>();
  const publicKeys: JWK[] = [];
  let signingKey: CryptoKey | undefined;
  for (const [index, jwk] of keys.entries()) {
    const publicJwk: JWK = Object.fromEntries(
      Object.entries(jwk).filter(([name]) => !(PRIVATE_MEMBERS as readonly string[]).includes(name)),
    );
    delete publicJwk.key_ops;
    publicJwk.alg = algorithm;
    publicJwk.use = 'sig';
    let publicKey: CryptoKey;
    try {
      publicKey = (await importJWK(publicJwk, algorithm)) as CryptoKey;
      if (index === 0) signingKey = (await importJWK({ ...jwk, key_ops: undefined }, algorithm)) as CryptoKey;
    } catch (cause) {
      throw new ConfigurationError(
        `keys[${index}] ("${jwk.kid}"): the key could not be imported: ${(cause as Error).message}`,
      );
    }
    verificationKeys.set(jwk.kid, publicKey);
    publicKeys.push(publicJwk);
  }
  const signingKid = keys[0]!.kid;
  return {
    algorithm,
    signingKey: signingKey!,
    signingKid,
    encodedHeader: base64url(utf8(JSON.stringify({ alg: algorithm, typ: 'at+jwt', kid: signingKid }))),
    sign: createJwsSigner(algorithm, signingKey!),
    verificationKeys,
    publicJwks: { keys: publicKeys },
  };
}
