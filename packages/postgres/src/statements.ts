import { createHash } from 'node:crypto';
import type pg from 'pg';

/** What the stores need of a pool: one statement at a time (each statement is its own transaction). */
export interface Statements {
  query<Row extends pg.QueryResultRow = pg.QueryResultRow>(
    text: string,
    values?: readonly unknown[],
  ): Promise<pg.QueryResult<Row>>;
}

/**
 * The engine's statements on `pool`, as named prepared statements when `prepare` is on: PostgreSQL
 * parses and plans each statement text once per connection instead of on every call. The stores'
 * statements carry `NOT EXISTS` revocation checks and CTEs whose planning cost more than running
 * them: on the bench machine (2 cores, pool of 10, 32 callers) a refresh-token lookup went from
 * 3,553 to 14,640 per second, a rotation from 1,734 to 4,110 (bench/RESULTS.md, run O).
 *
 * A statement's name is a digest of its text (which names the schema), so a pool shared with the
 * host, or with a second engine on another schema, never sees one name for two texts. The set of
 * texts is fixed by the code, so the names are bounded.
 *
 * Three errors mean that a prepared statement cannot be used, and all are raised before the
 * statement runs, so it is safe to send it again unnamed, which the engine then does for that text
 * from then on:
 * - `26000` (no such prepared statement) and `42P05` (a prepared statement of that name exists
 *   already): a pooler that hands each transaction another server connection (PgBouncer in
 *   transaction mode before 1.21, or without `max_prepared_statements`) sent the execution to a
 *   server connection that never prepared it, or the preparation to one where another client of
 *   the pool had; set `preparedStatements: false` there to skip the failed first tries;
 * - `0A000` "cached plan must not change result type": a migration changed a table under a
 *   statement prepared before it (a rolling upgrade).
 */
export function statements(pool: pg.Pool, prepare: boolean): Statements {
  if (!prepare) return { query: (text, values) => pool.query(text, values as unknown[]) };
  const names = new Map<string, string | null>();
  return {
    async query<Row extends pg.QueryResultRow>(text: string, values: readonly unknown[] = []) {
      let name = names.get(text);
      if (name === undefined) {
        name = `gatehouse_${createHash('sha256').update(text).digest('hex').slice(0, 40)}`;
        names.set(text, name);
      }
      if (name === null) return pool.query<Row>(text, values as unknown[]);
      try {
        return await pool.query<Row>({ name, text, values: values as unknown[] });
      } catch (error) {
        if (!cannotUsePrepared(error)) throw error;
        names.set(text, null);
        return pool.query<Row>(text, values as unknown[]);
      }
    },
  };
}

function cannotUsePrepared(error: unknown): boolean {
  const { code, message } = (error ?? {}) as { code?: unknown; message?: unknown };
  return (
    code === '26000' ||
    code === '42P05' ||
    (code === '0A000' && typeof message === 'string' && message.includes('cached plan must not change'))
  );
}
