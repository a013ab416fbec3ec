import { isHttpToken } from './http-token.js';

/*
 * Fetch's rules for header names and values (Fetch §5.2), shared by the `Headers` views that keep
 * their fields out of undici's `Headers` until something more than a lookup is asked of them
 * (`RawHeaders` of a Node request, `ReplyHeaders` of Gatehouse's own answers).
 */

/**
 * Names already checked, by the name as asked: the same few (`authorization`, `content-type`, …)
 * are asked on every request, and checking one against the token syntax costs more than the lookup.
 * Bounded: names past the bound are checked every time.
 */
const checkedNames = new Map<string, string>();
const MAX_CHECKED_NAMES = 64;

/** The lower-case name, or the `TypeError` `Headers` throws for a name that is no field name. */
export function headerName(name: string): string {
  const lower = fieldName(name);
  if (lower === undefined)
    throw new TypeError(`Headers: invalid header name ${JSON.stringify(String(name))}.`);
  return lower;
}

/** The lower-case name, or `undefined` for a name that is no field name (an HTTP token). */
export function fieldName(name: string): string | undefined {
  const known = typeof name === 'string' ? checkedNames.get(name) : undefined;
  if (known !== undefined) return known;
  const text = String(name);
  if (!isHttpToken(text)) return undefined;
  const lower = text.toLowerCase();
  if (checkedNames.size < MAX_CHECKED_NAMES) checkedNames.set(text, lower);
  return lower;
}

/** Fetch's value normalisation: leading and trailing tabs, spaces, CR and LF removed. */
export function trimHttpWhitespace(value: string): string {
  const first = value.charCodeAt(0);
  const last = value.charCodeAt(value.length - 1);
  const edge = (code: number) => code === 32 || code === 9 || code === 10 || code === 13;
  return value.length > 0 && (edge(first) || edge(last))
    ? value.replace(/^[\t\n\r ]+|[\t\n\r ]+$/g, '')
    : value;
}

/**
 * Whether a normalised value is one `Headers` accepts (Fetch §5.2 "header value": no NUL, CR or
 * LF; a WebIDL `ByteString`: no code unit above U+00FF).
 */
export function isHeaderValue(value: string): boolean {
  for (let i = 0; i < value.length; i++) {
    const code = value.charCodeAt(i);
    if (code === 0 || code === 10 || code === 13 || code > 0xff) return false;
  }
  return true;
}
