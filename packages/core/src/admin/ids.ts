import { base64url, utf8 } from '../crypto/encoding.js';

/*
 * The ids of sessions and grants in the admin API: `{user}.{id}`, the user id (base64url of its
 * UTF-8) then the session's public id (`sid`) or the grant id. The stores find a user's sessions
 * and grants by the user (the per-user index, `listUserRefreshTokens`), never by their id alone, so
 * `DELETE /sessions/{id}` and `DELETE /grants/{id}` carry the user in the id the listing gave.
 */

const STRICT_UTF8 = new TextDecoder('utf-8', { fatal: true });

/** The admin API's id of a user's session or grant. */
export function userScopedId(userId: string, id: string): string {
  return `${base64url(utf8(userId))}.${id}`;
}

/** The user and the session or grant id of an admin API id, or `undefined` for a malformed one. */
export function parseUserScopedId(value: string): { userId: string; id: string } | undefined {
  const dot = value.indexOf('.');
  if (dot <= 0 || dot === value.length - 1) return undefined;
  const encoded = value.slice(0, dot);
  if (!/^[A-Za-z0-9_-]+$/.test(encoded)) return undefined;
  try {
    const binary = atob(encoded.replace(/-/g, '+').replace(/_/g, '/'));
    const userId = STRICT_UTF8.decode(Uint8Array.from(binary, (c) => c.charCodeAt(0)));
    return userId === '' ? undefined : { userId, id: value.slice(dot + 1) };
  } catch {
    return undefined;
  }
}
