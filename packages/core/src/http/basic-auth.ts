import { invalidRequest } from '../errors.js';

/** A user-id/password pair from an `Authorization: Basic` header (RFC 7617). */
export interface BasicCredentials {
  readonly username: string;
  readonly password: string;
}

/**
 * Parses `Authorization: Basic …`. Returns `null` when the header is absent or uses another scheme
 * (the scheme name is case-insensitive, RFC 9110 §11.1); throws `invalid_request` when it is a
 * malformed Basic header. The payload is decoded as UTF-8 (RFC 7617 §2.1).
 *
 * With `formEncoded` (client credentials, RFC 6749 §2.3.1), both parts are additionally
 * `application/x-www-form-urlencoded`-decoded.
 */
export function parseBasicAuth(
  header: string | null,
  options: { formEncoded?: boolean } = {},
): BasicCredentials | null {
  if (header === null) return null;
  const match = /^basic[ ]+([A-Za-z0-9+/]+={0,2})[ ]*$/i.exec(header);
  if (!match) {
    if (/^basic(\s|$)/i.test(header)) throw invalidRequest('The Basic authorization header is malformed.');
    return null;
  }
  let decoded: string;
  try {
    const binary = atob(match[1]!);
    const bytes = Uint8Array.from(binary, (c) => c.charCodeAt(0));
    decoded = new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch {
    throw invalidRequest('The Basic authorization header is not valid base64-encoded UTF-8.');
  }
  const colon = decoded.indexOf(':');
  if (colon < 0) throw invalidRequest('The Basic authorization header lacks the ":" separator.');
  const username = decoded.slice(0, colon);
  const password = decoded.slice(colon + 1);
  if (!options.formEncoded) return { username, password };
  try {
    return { username: formDecode(username), password: formDecode(password) };
  } catch {
    throw invalidRequest('The client credentials are not correctly form-urlencoded (RFC 6749 §2.3.1).');
  }
}

function formDecode(value: string): string {
  return decodeURIComponent(value.replace(/\+/g, ' '));
}
