/** Small helpers of the record checks (`client-record.ts`, `user-record.ts`). */

/** Whether `value` is a non-array object (a record, a row). */
export function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Whether `text` parses as an absolute URI (a scheme, RFC 3986 §4.3). */
export function isAbsoluteUri(text: string): boolean {
  try {
    new URL(text);
    return true;
  } catch {
    return false;
  }
}

/** A value as a log line shows it: its type, and short strings and numbers themselves. */
export function shownValue(value: unknown): string {
  if (value === undefined) return 'nothing';
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  if (typeof value === 'string')
    return value.length <= 60 ? `the string ${JSON.stringify(value)}` : 'a long string';
  if (typeof value === 'number' || typeof value === 'boolean') return `the ${typeof value} ${String(value)}`;
  return `a ${typeof value}`;
}

/**
 * One `field: missing; did you mean "alias"?` line for each field the record lacks while it carries
 * one of the field's other spellings (`redirect_uris` for `redirectUris`): the field would otherwise
 * be taken as absent, silently.
 */
export function misspeltFields(
  record: Record<string, unknown>,
  fields: Readonly<Record<string, readonly string[]>>,
): string[] {
  const problems: string[] = [];
  for (const [field, aliases] of Object.entries(fields)) {
    if (record[field] !== undefined) continue;
    const alias = aliases.find((name) => record[name] !== undefined);
    if (alias !== undefined)
      problems.push(`${field}: missing, but the record has "${alias}"; did you mean "${field}"?`);
  }
  return problems;
}
