import { type CryptoKey, exportJWK, generateKeyPair, importJWK, type JWK } from 'jose';
import { base64url, utf8 } from '../crypto/encoding.js';
import { ConfigurationError } from '../errors.js';
import { createJwsSigner, type JwsSigner, type SigningAlgorithm } from './jws-signer.js';
import { checkKeySigner, type KeySigner, remoteJwsSigner } from './key-signer.js';

export type { SigningAlgorithm } from './jws-signer.js';

/** Every algorithm of {@link SigningAlgorithm}, in the order Gatehouse lists them. */
export const SIGNING_ALGORITHMS: readonly SigningAlgorithm[] = ['RS256', 'ES256', 'EdDSA'];

/** A private JWK as accepted in `options.keys` (with `kid`; `alg` optional). */
export type PrivateJwk = JWK & { readonly kid: string };

/** The key that signs everything of one algorithm: the first key of that algorithm in `options.keys`. */
export interface SigningKey {
  readonly algorithm: SigningAlgorithm;
  readonly kid: string;
  /** Signs with the key, the fastest way the runtime allows, or through its `KeySigner`. */
  readonly sign: JwsSigner;
}

/** The instance's keys, imported once at creation. */
export interface KeySet {
  /** The algorithm of access tokens (`options.algorithm`). */
  readonly algorithm: SigningAlgorithm;
  /** The `kid` of the key that signs every new access token (a signer's, else the first key of {@link algorithm}). */
  readonly signingKid: string;
  /**
   * The protected header of every access token (`alg`, `typ: at+jwt`, `kid`; RFC 9068 §2.1),
   * JSON-serialised and base64url-encoded once, since it never changes for a key.
   */
  readonly encodedHeader: string;
  /** Signs access tokens with the key of {@link signingKid}. */
  readonly sign: JwsSigner;
  /**
   * The signing key of each algorithm the instance holds (the first key of it), in the order of
   * `options.keys`: what ID tokens are signed with, and what discovery advertises.
   */
  readonly signers: ReadonlyMap<SigningAlgorithm, SigningKey>;
  /** Every key by `kid`: all of them verify (so old tokens survive a key rotation). */
  readonly verificationKeys: ReadonlyMap<string, CryptoKey>;
  /** The algorithm of every key, by `kid`. */
  readonly keyAlgorithms: ReadonlyMap<string, SigningAlgorithm>;
  /** The public JWKS served at `{base}/oauth2/v1/keys`: every key, of every algorithm. */
  readonly publicJwks: { readonly keys: readonly JWK[] };
  /** `Cache-Control: max-age` of the JWKS, in seconds: below `keyRotation.leadTime` with rotation. */
  readonly jwksMaxAge: number;
  /**
   * With stored keys (`keyRotation`): re-reads them for a token of a `kid` this set does not know
   * (a key another process just published), at most once a second; resolves to the fresher set
   * when it knows the `kid`. Use {@link verificationKeyOf}.
   */
  readonly refreshFor?: (kid: string) => Promise<KeySet | undefined>;
  /**
   * With stored keys: this set if the process read the stored keys within the refresh interval,
   * else the set after a re-read (a process idle for long must not publish or sign from an old
   * copy). Use {@link freshKeySet}: what publishes or signs calls it, never the bearer check.
   */
  readonly fresh?: () => Promise<KeySet> | undefined;
}

/**
 * The key set to publish or sign with: `keys` itself, at once, unless its stored keys are due for a
 * re-read, which it then waits for (once per refresh interval at most, shared).
 */
export function freshKeySet(keys: KeySet): KeySet | Promise<KeySet> {
  return keys.fresh?.() ?? keys;
}

/** A key that verifies, and its algorithm. */
export interface VerificationKey {
  readonly key: CryptoKey;
  readonly algorithm: SigningAlgorithm;
}

/**
 * The public key of `kid` and its algorithm, at once when `kid` is known (no turn of the microtask
 * queue on the bearer check's path); else after the bounded re-read of stored keys, if any.
 */
export function verificationKeyOf(
  keys: KeySet,
  kid: string,
): VerificationKey | undefined | Promise<VerificationKey | undefined> {
  const known = lookUp(keys, kid);
  if (known || !keys.refreshFor) return known;
  return keys.refreshFor(kid).then((fresher) => fresher && lookUp(fresher, kid));
}

function lookUp(keys: KeySet, kid: string): VerificationKey | undefined {
  const key = keys.verificationKeys.get(kid);
  const algorithm = keys.keyAlgorithms.get(kid);
  return key && algorithm ? { key, algorithm } : undefined;
}

/**
 * Generates a private signing key as a JWK (with a random `kid`), for `options.keys`. Store it as a
 * secret (environment variable, secret manager); keep old keys after the new one while tokens they
 * signed may still be alive. RS256 keys are 2048-bit RSA: relying parties that do not register an
 * `id_token_signed_response_alg` expect ID tokens signed with RS256 (OpenID Connect Core §3.1.3.7).
 */
export async function generateKeys(algorithm: SigningAlgorithm = 'ES256'): Promise<PrivateJwk> {
  const { privateKey } = await generateKeyPair(algorithm, {
    extractable: true,
    ...(algorithm === 'EdDSA' ? { crv: 'Ed25519' } : {}),
    ...(algorithm === 'RS256' ? { modulusLength: 2048 } : {}),
  });
  const jwk = await exportJWK(privateKey);
  const kid = crypto.randomUUID();
  const key: PrivateJwk = { ...jwk, kid, alg: algorithm, use: 'sig' };
  generatedHere.add(key);
  return key;
}

/**
 * The keys {@link generateKeys} returned in this process, by identity: a key stored and read back
 * (JSON, a secret manager) is another object, so only a key made at start and never kept is here.
 */
const generatedHere = new WeakSet<object>();

/**
 * Whether `jwk` is an object {@link generateKeys} returned in this process: an ephemeral key,
 * whose tokens stop verifying when the process restarts and which other processes do not share.
 */
export function isEphemeralKey(jwk: object): boolean {
  return generatedHere.has(jwk);
}

const PRIVATE_MEMBERS = ['d', 'p', 'q', 'dp', 'dq', 'qi', 'oth', 'k'] as const;

/** Smallest RSA modulus accepted, in bytes: 2048 bits (RFC 7518 §3.3). */
const MIN_RSA_MODULUS_BYTES = 256;

/** How each algorithm's keys are described in messages. */
const KEY_TYPES: Readonly<Record<SigningAlgorithm, string>> = {
  ES256: 'P-256 EC',
  EdDSA: 'Ed25519 OKP',
  RS256: 'RSA (2048 bits or more)',
};

/** The algorithm a key's type implies, or `undefined` for a key Gatehouse cannot sign with. */
function algorithmOfKeyType(jwk: JWK): SigningAlgorithm | undefined {
  if (jwk.kty === 'EC' && jwk.crv === 'P-256') return 'ES256';
  if (jwk.kty === 'OKP' && jwk.crv === 'Ed25519') return 'EdDSA';
  if (
    jwk.kty === 'RSA' &&
    typeof jwk.n === 'string' &&
    Math.floor((jwk.n.length * 3) / 4) >= MIN_RSA_MODULUS_BYTES
  )
    return 'RS256';
  return undefined;
}

/** What a value is, for messages: `a string`, `an array`, `null`… */
function describeValue(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  const type = typeof value;
  return `${/^[aeiou]/.test(type) ? 'an' : 'a'} ${type}`;
}

/**
 * The algorithm of each key of a checked key list (its `alg`, or the one its type implies), in order.
 * Throws {@link ConfigurationError} for a key Gatehouse cannot sign with, or whose `alg` contradicts
 * its type.
 */
function keyAlgorithmsOf(keys: readonly PrivateJwk[]): SigningAlgorithm[] {
  return keys.map((jwk, index) => {
    const implied = algorithmOfKeyType(jwk);
    if (implied === undefined) {
      throw new ConfigurationError(
        `keys[${index}] ("${jwk.kid}"): not a key Gatehouse signs with (${Object.values(KEY_TYPES).join(', ')}).`,
        { code: 'ERR_CONFIG_INVALID_KEY', option: `keys[${index}]` },
      );
    }
    if (jwk.alg !== undefined && jwk.alg !== implied) {
      throw new ConfigurationError(
        `keys[${index}] ("${jwk.kid}"): alg "${jwk.alg}" does not fit a ${KEY_TYPES[implied]} key (${implied}).`,
        { code: 'ERR_CONFIG_INVALID_KEY', option: `keys[${index}]` },
      );
    }
    return implied;
  });
}

/**
 * Checks `options.keys` without importing them; throws {@link ConfigurationError} with the reason.
 * Keys of several algorithms may be mixed; the first key of each algorithm signs (so it must be
 * private), and `algorithm`, the access tokens' one, must have a key.
 */
export function checkKeys(
  keys: readonly PrivateJwk[],
  algorithm: SigningAlgorithm,
  signers: readonly KeySigner[] = [],
  rotated: readonly SigningAlgorithm[] = [],
): void {
  const signerAlgorithms = signerAlgorithmsOf(signers);
  // Stored keys (`keyRotation`) sign their algorithms like a signer does: keys of them only verify.
  const signed = [...signerAlgorithms, ...rotated];
  const both = signerAlgorithms.findIndex((signing) => rotated.includes(signing));
  if (both !== -1)
    throw new ConfigurationError(
      `signers[${both}]: keyRotation.algorithms includes ${signerAlgorithms[both]}, which this signer signs; one of them signs an algorithm (drop it from one).`,
      { code: 'ERR_CONFIG_CONFLICTING_OPTIONS', option: `signers[${both}]` },
    );
  if (!Array.isArray(keys)) {
    throw new ConfigurationError(
      `keys: expected an array of private JWK objects, got ${describeValue(keys)}` +
        (typeof keys === 'string' ? ' (parse a JWK kept as JSON text with JSON.parse first).' : '.'),
      {
        code: keys === undefined ? 'ERR_CONFIG_MISSING_OPTION' : 'ERR_CONFIG_INVALID_OPTION',
        option: 'keys',
      },
    );
  }
  if (keys.length === 0 && signers.length === 0 && rotated.length === 0) {
    throw new ConfigurationError('keys: at least one private JWK is required (see generateKeys()).', {
      code: 'ERR_CONFIG_MISSING_OPTION',
      option: 'keys',
    });
  }
  const kids = new Set<string>();
  for (const [index, jwk] of keys.entries()) {
    if (typeof jwk !== 'object' || jwk === null || Array.isArray(jwk)) {
      throw new ConfigurationError(
        `keys[${index}]: expected a JWK object, got ${describeValue(jwk)}` +
          (typeof jwk === 'string' ? ' (parse a JWK kept as JSON text with JSON.parse first).' : '.'),
        { code: 'ERR_CONFIG_INVALID_KEY', option: `keys[${index}]` },
      );
    }
    if (typeof jwk?.kid !== 'string' || jwk.kid === '')
      throw new ConfigurationError(`keys[${index}]: a "kid" is required.`, {
        code: 'ERR_CONFIG_INVALID_KEY',
        option: `keys[${index}]`,
      });
    if (kids.has(jwk.kid))
      throw new ConfigurationError(`keys[${index}]: duplicate kid "${jwk.kid}".`, {
        code: 'ERR_CONFIG_INVALID_KEY',
        option: `keys[${index}]`,
      });
    kids.add(jwk.kid);
  }
  for (const [index, signer] of signers.entries()) {
    if (kids.has(signer.publicJwk.kid))
      throw new ConfigurationError(
        `signers[${index}]: duplicate kid "${signer.publicJwk.kid}" (also in keys or signers).`,
        {
          code: 'ERR_CONFIG_INVALID_KEY',
          option: `signers[${index}]`,
        },
      );
    kids.add(signer.publicJwk.kid);
  }
  const algorithms = keyAlgorithmsOf(keys);
  if (!algorithms.includes(algorithm) && !signed.includes(algorithm)) {
    throw new ConfigurationError(
      `keys: no ${KEY_TYPES[algorithm]} key, as algorithm ${algorithm} (the access tokens' algorithm) requires.`,
      { code: 'ERR_CONFIG_CONFLICTING_OPTIONS', option: 'keys' },
    );
  }
  for (const signing of new Set(algorithms)) {
    // A signer signs for its algorithm: keys of it only verify (tokens signed before), public is enough.
    if (signed.includes(signing)) continue;
    const index = algorithms.indexOf(signing);
    if (typeof keys[index]!.d !== 'string') {
      throw new ConfigurationError(
        `keys[${index}]: the signing key must be a private JWK (with "d"): it is the first ${signing} key.`,
        { code: 'ERR_CONFIG_INVALID_KEY', option: `keys[${index}]` },
      );
    }
  }
}

/**
 * The algorithm of each `signers` entry (its public JWK's `alg`, or the one its type implies).
 * Throws {@link ConfigurationError} for an entry that is no signer, or two signers of one algorithm.
 */
function signerAlgorithmsOf(signers: readonly KeySigner[]): SigningAlgorithm[] {
  if (!Array.isArray(signers))
    throw new ConfigurationError('signers: expected an array of key signers.', { option: 'signers' });
  const seen: SigningAlgorithm[] = [];
  signers.forEach((signer, index) => {
    checkKeySigner(signer, index);
    const secret = PRIVATE_MEMBERS.find((name) => name in signer.publicJwk);
    if (secret)
      throw new ConfigurationError(
        `signers[${index}] ("${signer.publicJwk.kid}"): publicJwk has the private member "${secret}"; give the public key only.`,
        { code: 'ERR_CONFIG_INVALID_KEY', option: `signers[${index}]` },
      );
    let algorithm: SigningAlgorithm;
    try {
      [algorithm] = keyAlgorithmsOf([signer.publicJwk]) as [SigningAlgorithm];
    } catch (error) {
      throw new ConfigurationError((error as Error).message.replace(/^keys\[0\]/, `signers[${index}]`), {
        code: 'ERR_CONFIG_INVALID_KEY',
        option: `signers[${index}]`,
      });
    }
    if (seen.includes(algorithm))
      throw new ConfigurationError(
        `signers[${index}]: a second ${algorithm} signer; one signs per algorithm.`,
        {
          code: 'ERR_CONFIG_INVALID_KEY',
          option: `signers[${index}]`,
        },
      );
    seen.push(algorithm);
  });
  return seen;
}

/**
 * The public half of a private JWK, as published in the JWKS: the private members dropped,
 * `key_ops` dropped (it would say `sign`), `alg` and `use: "sig"` set.
 */
export function publicJwkOf(jwk: JWK, algorithm: SigningAlgorithm): JWK {
  const publicJwk: JWK = Object.fromEntries(
    Object.entries(jwk).filter(([name]) => !(PRIVATE_MEMBERS as readonly string[]).includes(name)),
  );
  delete publicJwk.key_ops;
  publicJwk.alg = algorithm;
  publicJwk.use = 'sig';
  return publicJwk;
}

/**
 * Keys imported from one source (`keys` and `signers`, or the keys stored by key rotation), before
 * they are joined into a {@link KeySet} by {@link keySetOf}.
 */
export interface KeyMaterial {
  /** The key that signs each algorithm this source signs for. */
  readonly signers: ReadonlyMap<SigningAlgorithm, SigningKey>;
  readonly verificationKeys: ReadonlyMap<string, CryptoKey>;
  readonly keyAlgorithms: ReadonlyMap<string, SigningAlgorithm>;
  /** Public JWKs, in the order the JWKS lists them. */
  readonly publicKeys: readonly JWK[];
}

/** Imports `options.keys` (checked by {@link checkKeys}). */
export async function importKeySet(
  keys: readonly PrivateJwk[],
  algorithm: SigningAlgorithm,
  keySigners: readonly KeySigner[] = [],
): Promise<KeySet> {
  return keySetOf(algorithm, [await importKeyMaterial(keys, algorithm, keySigners)]);
}

/**
 * Imports `options.keys` and `options.signers` (checked by {@link checkKeys}). Keys of the
 * `rotated` algorithms only verify: stored keys sign for them (`keyRotation`).
 */
export async function importKeyMaterial(
  keys: readonly PrivateJwk[],
  algorithm: SigningAlgorithm,
  keySigners: readonly KeySigner[] = [],
  rotated: readonly SigningAlgorithm[] = [],
): Promise<KeyMaterial> {
  checkKeys(keys, algorithm, keySigners, rotated);
  const algorithms = keyAlgorithmsOf(keys);
  const verificationKeys = new Map<string, CryptoKey>();
  const keyAlgorithms = new Map<string, SigningAlgorithm>();
  const signers = new Map<SigningAlgorithm, SigningKey>();
  const publicKeys: JWK[] = [];
  // Signers first: they sign for their algorithm, and their keys lead the JWKS.
  for (const [index, [signerAlgorithm, signer]] of signerAlgorithmsOf(keySigners)
    .map((a, i) => [a, keySigners[i]!] as const)
    .entries()) {
    const publicJwk = publicJwkOf(signer.publicJwk, signerAlgorithm);
    try {
      verificationKeys.set(publicJwk.kid!, (await importJWK(publicJwk, signerAlgorithm)) as CryptoKey);
    } catch (cause) {
      throw new ConfigurationError(
        `signers[${index}] ("${publicJwk.kid}"): the public key could not be imported: ${(cause as Error).message}`,
        { code: 'ERR_CONFIG_INVALID_KEY', option: `signers[${index}]`, cause },
      );
    }
    keyAlgorithms.set(publicJwk.kid!, signerAlgorithm);
    signers.set(signerAlgorithm, {
      algorithm: signerAlgorithm,
      kid: publicJwk.kid!,
      sign: remoteJwsSigner(signer, signerAlgorithm),
    });
    publicKeys.push(publicJwk);
  }
  for (const [index, jwk] of keys.entries()) {
    const keyAlgorithm = algorithms[index]!;
    const publicJwk = publicJwkOf(jwk, keyAlgorithm);
    let publicKey: CryptoKey;
    try {
      publicKey = (await importJWK(publicJwk, keyAlgorithm)) as CryptoKey;
      if (!signers.has(keyAlgorithm) && !rotated.includes(keyAlgorithm)) {
        signers.set(keyAlgorithm, await signingKeyOf(jwk, keyAlgorithm));
      }
    } catch (cause) {
      throw new ConfigurationError(
        `keys[${index}] ("${jwk.kid}"): the key could not be imported: ${(cause as Error).message}`,
        { code: 'ERR_CONFIG_INVALID_KEY', option: `keys[${index}]`, cause },
      );
    }
    verificationKeys.set(jwk.kid, publicKey);
    keyAlgorithms.set(jwk.kid, keyAlgorithm);
    publicKeys.push(publicJwk);
  }
  return { signers, verificationKeys, keyAlgorithms, publicKeys };
}

/** The {@link SigningKey} of a private JWK of `algorithm`. */
export async function signingKeyOf(jwk: PrivateJwk, algorithm: SigningAlgorithm): Promise<SigningKey> {
  const key = (await importJWK({ ...jwk, key_ops: undefined }, algorithm)) as CryptoKey;
  return { algorithm, kid: jwk.kid, sign: createJwsSigner(algorithm, key, jwk) };
}

/**
 * Joins key material into the instance's {@link KeySet}: for each algorithm, the first source that
 * signs it signs; every key of every source verifies and is published, in the order given. The
 * access tokens' `algorithm` must have a signer (the option checks make sure of it).
 */
export function keySetOf(
  algorithm: SigningAlgorithm,
  sources: readonly KeyMaterial[],
  options: Pick<KeySet, 'refreshFor' | 'fresh'> & { readonly jwksMaxAge?: number } = {},
): KeySet {
  const signers = new Map<SigningAlgorithm, SigningKey>();
  const verificationKeys = new Map<string, CryptoKey>();
  const keyAlgorithms = new Map<string, SigningAlgorithm>();
  const publicKeys: JWK[] = [];
  for (const source of sources) {
    for (const [signing, signer] of source.signers) if (!signers.has(signing)) signers.set(signing, signer);
    for (const [kid, key] of source.verificationKeys) verificationKeys.set(kid, key);
    for (const [kid, keyAlgorithm] of source.keyAlgorithms) keyAlgorithms.set(kid, keyAlgorithm);
    publicKeys.push(...source.publicKeys);
  }
  const accessTokenSigner = signers.get(algorithm);
  if (!accessTokenSigner) throw new Error(`No ${algorithm} key signs access tokens.`);
  return {
    algorithm,
    signingKid: accessTokenSigner.kid,
    encodedHeader: base64url(
      utf8(JSON.stringify({ alg: algorithm, typ: 'at+jwt', kid: accessTokenSigner.kid })),
    ),
    sign: accessTokenSigner.sign,
    signers,
    verificationKeys,
    keyAlgorithms,
    publicJwks: { keys: publicKeys },
    jwksMaxAge: options.jwksMaxAge ?? 300,
    ...(options.refreshFor === undefined ? {} : { refreshFor: options.refreshFor }),
    ...(options.fresh === undefined ? {} : { fresh: options.fresh }),
  };
}
