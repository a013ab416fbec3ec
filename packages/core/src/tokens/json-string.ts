/**
 * JSON texts of strings that recur from one token to the next (the issuer, the audience, a
 * client's id, a grant's scope), encoded once: `JSON.stringify` looks at every character of a
 * string for escapes, about twenty instructions each. Bounded in entries and in the length of what
 * it keeps; anything past the bounds is encoded every time.
 */
const encoded = new Map<string, string>();
const MAX_ENTRIES = 256;
const MAX_KEPT_LENGTH = 256;

/** `JSON.stringify(value)` for a string. */
export function jsonString(value: string): string {
  let text = encoded.get(value);
  if (text === undefined) {
    text = JSON.stringify(value);
    if (encoded.size < MAX_ENTRIES && value.length <= MAX_KEPT_LENGTH) encoded.set(value, text);
  }
  return text;
}
