/** Qualified, quoted table names of one schema. */
export interface Tables {
  readonly schema: string;
  readonly codes: string;
  readonly refreshTokens: string;
  readonly revokedGrants: string;
  readonly revokedAccessTokens: string;
  readonly revokedSubjects: string;
  readonly registeredClients: string;
  readonly keyValues: string;
}

/** The default schema. */
export const DEFAULT_SCHEMA = 'gatehouse';

/** Table names below `schema`, which must be a plain identifier (it is interpolated into SQL). */
export function tables(schema: string): Tables {
  if (!/^[A-Za-z_][A-Za-z0-9_]{0,62}$/.test(schema)) {
    throw new TypeError(
      'postgresStorage: `schema` must be a plain SQL identifier (letters, digits, underscore).',
    );
  }
  const q = (name: string) => `"${schema}"."${name}"`;
  return {
    schema: `"${schema}"`,
    codes: q('authorization_codes'),
    refreshTokens: q('refresh_tokens'),
    revokedGrants: q('revoked_grants'),
    revokedAccessTokens: q('revoked_access_tokens'),
    revokedSubjects: q('revoked_subjects'),
    registeredClients: q('registered_clients'),
    keyValues: q('key_values'),
  };
}

/** Every table holding instance rows (all of them carry `instance_id`). */
export function instanceTables(t: Tables): string[] {
  return [
    t.codes,
    t.refreshTokens,
    t.revokedGrants,
    t.revokedAccessTokens,
    t.revokedSubjects,
    t.registeredClients,
    t.keyValues,
  ];
}
