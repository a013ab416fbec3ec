import { invalidRequest } from '../errors.js';
import { unstorableText } from './storable-text.js';

/**
 * Longest `Authorization: Basic` header worth decoding: the scheme, 16 spaces and the base64 (5,124
 * characters) of 3,843 bytes, the UTF-8 of the longest `username:password` within
 * `CREDENTIAL_LIMITS` (`passwords/credential-limits.ts`: 256 + 1 + 1,024 code units, at most 3 bytes
 * each, a surrogate pair taking 4 for 2). Its test sends exactly such credentials. Client
 * credentials (form-encoded ids and secrets) are bounded by the same length, far above any
 * generated secret.
 */
export const MAX_BASIC_HEADER_LENGTH = 'Basic'.length + 16 + 4 * Math.ceil((3 * (256 + 1 + 1024)) / 3);

/** A user-id/password pair from an `Authorization: Basic` header (RFC 7617). */
export interface BasicCredentials {
  readonly username: string;
  readonly password: string;
}

/**
 * Parses `Authorization: Basic …`. Returns `null` when the header is absent or uses another scheme
 * (the scheme name is case-insensitive, RFC 9110 §11.1); throws `invalid_request` when it is a
 * malformed Basic header, or one longer than any credentials within `CREDENTIAL_LIMITS` need
 * (`MAX_BASIC_HEADER_LENGTH`: refused before decoding, so its size costs nothing more). The
 * payload is decoded as UTF-8 (RFC 7617 §2.1).
 *
 * With `formEncoded` (client credentials, RFC 6749 §2.3.1), both parts are additionally
 * `application/x-www-form-urlencoded`-decoded.
 */
export function parseBasicAuth(
  header: string | null,
  options: { formEncoded?: boolean } = {},
): BasicCredentials | null {
  if (header === null) return null;
  if (header.length > MAX_BASIC_HEADER_LENGTH && /^basic(\s|$)/i.test(header)) {
    throw invalidRequest('The Basic authorization header is too long.');
  }
  const match = /^basic[ ]+([A-Za-z0-9+/]+={0,2})[ ]*$/i.exec(header);
  if (!match) {
    if (/^basic(\s|$)/i.test(header)) throw invalidRequest('The Basic authorization header is malformed.');
    return null;
  }
  let decoded: string;
  try {
    decoded = utf8Decode(atob(match[1]!));
  } catch {
    throw invalidRequest('The Basic authorization header is not valid base64-encoded UTF-8.');
  }
  const colon = decoded.indexOf(':');
  if (colon < 0) throw invalidRequest('The Basic authorization header lacks the ":" separator.');
  const username = decoded.slice(0, colon);
  const password = decoded.slice(colon + 1);
  if (!options.formEncoded) return { username: storableUserId(username), password };
  let credentials: BasicCredentials;
  try {
    credentials = { username: formDecode(username), password: formDecode(password) };
  } catch {
    throw invalidRequest('The client credentials are not correctly form-urlencoded (RFC 6749 §2.3.1).');
  }
  return { username: storableUserId(credentials.username), password: credentials.password };
}

/**
 * The user-id part, refused (`invalid_request`) with a control character or an unpaired surrogate:
 * it is looked up in a store (a client id, a username), see `storable-text.ts`. The password is
 * only ever hashed.
 */
function storableUserId(userId: string): string {
  const problem = unstorableText(userId);
  if (problem !== undefined) throw invalidRequest(`The Basic authorization user id contains ${problem}.`);
  return userId;
}

/** Strict UTF-8: malformed sequences throw rather than becoming U+FFFD. Stateless, so shared. */
const strictUtf8 = new TextDecoder('utf-8', { fatal: true });

/**
 * The text whose UTF-8 bytes `binary` holds (one byte per character, as `atob` returns them).
 * Credentials are nearly always ASCII, which decodes to itself: only other bytes go through the
 * decoder (every client-authenticated request passes here).
 */
function utf8Decode(binary: string): string {
  // `atob` gives one character per byte (U+0000–U+00FF): none above U+007F means ASCII.
  if (!/[\u0080-\u00ff]/.test(binary)) return binary;
  const bytes = new Uint8Array(binary.length);
  for (let i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i);
  return strictUtf8.decode(bytes);
}

function formDecode(value: string): string {
  return decodeURIComponent(value.replace(/\+/g, ' '));
}
