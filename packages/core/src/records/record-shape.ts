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

/** The other spellings of a record's fields (`redirect_uris` → `redirectUris`), for {@link misspeltFields}. */
export type FieldSpellings = ReadonlyMap<string, string>;

/** {@link FieldSpellings} of a table `field → its other spellings`. */
export function fieldSpellings(fields: Readonly<Record<string, readonly string[]>>): FieldSpellings {
  return new Map(
    Object.entries(fields).flatMap(([field, aliases]) => aliases.map((alias) => [alias, field])),
  );
}

/**
 * One `field: missing; did you mean "alias"?` line for each field the record lacks while it carries
 * one of the field's other spellings (`redirect_uris` for `redirectUris`): the field would otherwise
 * be taken as absent, silently. Walks the record's own keys once (a row has a few), not the table.
 */
export function misspeltFields(record: Record<string, unknown>, spellings: FieldSpellings): string[] {
  const problems: string[] = [];
  const named = new Set<string>();
  for (const key of Object.keys(record)) {
    const field = spellings.get(key);
    if (field === undefined || record[field] !== undefined || record[key] === undefined || named.has(field))
      continue;
    named.add(field);
    problems.push(`${field}: missing, but the record has "${key}"; did you mean "${field}"?`);
  }
  return problems;
}
