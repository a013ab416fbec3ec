/**
 * The optional fields of a record, kept in its row's `attrs` JSONB column (migration 002): every
 * field that no query filters on. A new optional field of the contract is then stored without a
 * migration, as long as it is listed here.
 */

/** Optional fields of codes (besides `codeChallenge` and `consumedAt`, which have columns). */
export const CODE_ATTRIBUTES = ['audience', 'nonce', 'sessionId', 'acr', 'amr', 'ext'] as const;
/** Optional fields of refresh tokens (besides `rotatedAt`, which has a column). */
export const REFRESH_ATTRIBUTES = [
  'audience',
  'authTime',
  'grantedAt',
  'sessionId',
  'acr',
  'amr',
  'ext',
] as const;

/** The JSON text of the listed fields `record` has (absent ones are left out, never `null`). */
export function attributesOf(record: object, names: readonly string[]): string {
  const attributes: Record<string, unknown> = {};
  for (const name of names) {
    const value = (record as Record<string, unknown>)[name];
    if (value !== undefined) attributes[name] = value;
  }
  return JSON.stringify(attributes);
}

/** The listed fields of a row's parsed `attrs`, ready to spread into the record. */
export function attributesFrom(attrs: Record<string, unknown> | null, names: readonly string[]): object {
  if (!attrs) return {};
  const fields: Record<string, unknown> = {};
  for (const name of names) if (attrs[name] !== undefined) fields[name] = attrs[name];
  return fields;
}
