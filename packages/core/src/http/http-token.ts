/** The `token` of HTTP (RFC 9110 §5.6.2): what field names and methods are made of. */

const TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;

/** Whether `text` is a non-empty `token` (RFC 9110 §5.6.2). */
export function isHttpToken(text: string): boolean {
  return TOKEN.test(text);
}
