import { readdir, readFile } from 'node:fs/promises';
import type { Pool } from 'pg';
import { DEFAULT_SCHEMA, tables } from './schema.js';

/** Options of {@link migrate}. */
export interface MigrateOptions {
  /** Schema to create and migrate. Default `gatehouse`. */
  readonly schema?: string;
  /**
   * Stop after this version (e.g. `'001_init'`): for staged upgrades and for testing an upgrade
   * from an older schema. Default: every shipped migration.
   */
  readonly target?: string;
}

/** The shipped migrations (`migrations/NNN_name.sql`), in order. */
const MIGRATIONS_DIR = new URL('../migrations/', import.meta.url);

/**
 * Creates the schema if needed and applies the shipped migrations not applied yet, each recorded in
 * `schema_migrations`. Everything runs in one transaction under an advisory lock, so concurrent
 * starts (several processes) migrate once and a failing migration leaves nothing behind. Returns
 * the versions it applied.
 */
export async function migrate(pool: Pool, options: MigrateOptions = {}): Promise<string[]> {
  const schemaName = options.schema ?? DEFAULT_SCHEMA;
  const { schema } = tables(schemaName);
  const shipped = (await readdir(MIGRATIONS_DIR)).filter((name) => /^\d+_.+\.sql$/.test(name)).sort();
  const files =
    options.target === undefined
      ? shipped
      : shipped.filter((file) => file.replace(/\.sql$/, '') <= options.target!);
  if (options.target !== undefined && !shipped.includes(`${options.target}.sql`)) {
    throw new TypeError(`migrate: no migration "${options.target}" (shipped: ${shipped.join(', ')}).`);
  }
  const client = await pool.connect();
  try {
    await client.query('BEGIN');
    await client.query('SELECT pg_advisory_xact_lock(hashtext($1))', [`gatehouse-migrate:${schemaName}`]);
    await client.query(`CREATE SCHEMA IF NOT EXISTS ${schema}`);
    await client.query(`SET LOCAL search_path TO ${schema}`);
    await client.query(
      'CREATE TABLE IF NOT EXISTS schema_migrations (version text PRIMARY KEY, applied_at timestamptz NOT NULL DEFAULT now())',
    );
    const done = new Set(
      (await client.query<{ version: string }>('SELECT version FROM schema_migrations')).rows.map(
        (r) => r.version,
      ),
    );
    const applied: string[] = [];
    for (const file of files) {
      const version = file.replace(/\.sql$/, '');
      if (done.has(version)) continue;
      await client.query(await readFile(new URL(file, MIGRATIONS_DIR), 'utf8'));
      await client.query('INSERT INTO schema_migrations (version) VALUES ($1)', [version]);
      applied.push(version);
    }
    await client.query('COMMIT');
    return applied;
  } catch (error) {
    await client.query('ROLLBACK').catch(() => {});
    throw error;
  } finally {
    client.release();
  }
}
