import { base64url as base64urlText } from 'jose';
import { base64url, utf8 } from '../../crypto/encoding.js';
import { ConfigurationError } from '../../errors.js';

const base64urlDecode = (text: string): Uint8Array<ArrayBuffer> =>
  base64urlText.decode(text) as Uint8Array<ArrayBuffer>;

/**
 * A host key-encryption key (KEK), imported for AES-GCM (Web Crypto, so the main entry needs no
 * `node:` module). `id` names it in each sealed value, so that a value sealed under an earlier KEK
 * is opened with that one (`keyRotation.previousKeyEncryptionKeys`).
 */
export interface KeyEncryptionKey {
  /** The first 8 bytes of SHA-256 of the key, base64url: names the KEK, reveals nothing of it. */
  readonly id: string;
  readonly key: CryptoKey;
  /**
   * The HMAC-SHA-256 key that authenticates the stored key record (see {@link authenticateRecord}),
   * derived from the KEK with HKDF-SHA-256 (RFC 5869) under its own label, so that the AES key is
   * never used for a second purpose.
   */
  readonly macKey: CryptoKey;
}

/** The HKDF `info` of the record MAC key (RFC 5869 §3.2: binds the derived key to its use). */
const RECORD_MAC_INFO = 'gatehouse signing-key record MAC v1';

/** AES key lengths, in bytes: 128, 192 and 256 bits (NIST SP 800-38D uses AES of any of them). */
const KEY_LENGTHS = new Set([16, 24, 32]);

/** GCM nonce length: 96 bits, the length NIST SP 800-38D §8.2 recommends for random nonces. */
const IV_BYTES = 12;

/**
 * The raw bytes of a KEK given as `Uint8Array` or base64url text; throws {@link ConfigurationError}
 * (`ERR_CONFIG_WEAK_KEY_ENCRYPTION_KEY`) for anything but 16, 24 or 32 bytes.
 */
export function keyEncryptionKeyBytes(given: unknown, option: string): Uint8Array {
  let bytes: Uint8Array | undefined;
  if (given instanceof Uint8Array) bytes = given;
  else if (typeof given === 'string' && /^[A-Za-z0-9_-]*$/.test(given)) {
    try {
      bytes = base64urlDecode(given);
    } catch {
      bytes = undefined;
    }
  }
  if (bytes === undefined) {
    throw new ConfigurationError(
      `${option}: expected 16, 24 or 32 random bytes, as a Uint8Array or base64url text.`,
      { code: given === undefined ? 'ERR_CONFIG_MISSING_OPTION' : 'ERR_CONFIG_INVALID_OPTION', option },
    );
  }
  if (!KEY_LENGTHS.has(bytes.length)) {
    throw new ConfigurationError(
      `${option}: ${bytes.length * 8} bits; an AES key-encryption key is 128, 192 or 256 bits (16, 24 or 32 random bytes).`,
      { code: 'ERR_CONFIG_WEAK_KEY_ENCRYPTION_KEY', option },
    );
  }
  return bytes;
}

/** Imports checked KEK bytes (non-extractable, encrypt and decrypt only). */
export async function importKeyEncryptionKey(bytes: Uint8Array): Promise<KeyEncryptionKey> {
  const raw = new Uint8Array(bytes);
  const digest = new Uint8Array(await crypto.subtle.digest('SHA-256', raw));
  const key = await crypto.subtle.importKey('raw', raw, 'AES-GCM', false, ['encrypt', 'decrypt']);
  const material = await crypto.subtle.importKey('raw', raw, 'HKDF', false, ['deriveKey']);
  const macKey = await crypto.subtle.deriveKey(
    { name: 'HKDF', hash: 'SHA-256', salt: new Uint8Array(0), info: utf8(RECORD_MAC_INFO) },
    material,
    { name: 'HMAC', hash: 'SHA-256', length: 256 },
    false,
    ['sign', 'verify'],
  );
  return { id: base64url(digest.subarray(0, 8)), key, macKey };
}

/** The MAC of a stored key record's content under `kek`: `kekId.hmac` (base64url). */
export async function authenticateRecord(kek: KeyEncryptionKey, content: string): Promise<string> {
  const mac = await crypto.subtle.sign('HMAC', kek.macKey, utf8(content));
  return `${kek.id}.${base64url(new Uint8Array(mac))}`;
}

/**
 * Whether `mac` (of {@link authenticateRecord}) authenticates `content` under the KEK it names
 * among `keks` (the comparison is Web Crypto's `verify`, in constant time). `false` for a KEK not
 * configured, a malformed MAC or altered content.
 */
export async function isAuthenticRecord(
  keks: readonly KeyEncryptionKey[],
  mac: string,
  content: string,
): Promise<boolean> {
  const [id, tag, extra] = mac.split('.');
  const kek = keks.find((candidate) => candidate.id === id);
  if (!kek || tag === undefined || extra !== undefined || !/^[A-Za-z0-9_-]{43}$/.test(tag)) return false;
  return crypto.subtle.verify('HMAC', kek.macKey, base64urlDecode(tag), utf8(content));
}

/**
 * Encrypts `plaintext` with AES-GCM under `kek`: `kekId.iv.ciphertext` (base64url), the tag in the
 * ciphertext. `context` is the additional authenticated data: it binds the value to where it is
 * stored (the issuer and the `kid`), so a value moved to another slot or instance does not open.
 */
export async function seal(kek: KeyEncryptionKey, plaintext: string, context: string): Promise<string> {
  const iv = crypto.getRandomValues(new Uint8Array(IV_BYTES));
  const sealed = await crypto.subtle.encrypt(
    { name: 'AES-GCM', iv, additionalData: utf8(context) },
    kek.key,
    utf8(plaintext),
  );
  return `${kek.id}.${base64url(iv)}.${base64url(new Uint8Array(sealed))}`;
}

/**
 * Decrypts a value of {@link seal} with the KEK it names among `keks`. Throws when no KEK of
 * `keks` sealed it, or when it was altered or moved (the GCM tag does not verify).
 */
export async function open(
  keks: readonly KeyEncryptionKey[],
  sealed: string,
  context: string,
): Promise<string> {
  const [id, iv, ciphertext] = sealed.split('.');
  const kek = keks.find((candidate) => candidate.id === id);
  if (!kek || iv === undefined || ciphertext === undefined)
    throw new Error(`sealed under key-encryption key "${id}", which is not configured`);
  const plaintext = await crypto.subtle.decrypt(
    { name: 'AES-GCM', iv: base64urlDecode(iv), additionalData: utf8(context) },
    kek.key,
    base64urlDecode(ciphertext),
  );
  return new TextDecoder().decode(plaintext);
}
