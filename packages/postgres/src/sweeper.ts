import { wholeInstant } from '@gatehousejs/core/engine';
import { instanceTables, type Tables } from './schema.js';
import type { Statements } from './statements.js';

/** Options of a sweep. */
export interface SweepOptions {
  /** Rows at or past this time (epoch ms) are deleted. Default `Date.now()`. */
  readonly now?: number;
  /** Rows deleted per statement, so no statement holds many locks for long. Default 1000. */
  readonly batchSize?: number;
  /** Upper bound on statements per table per sweep; the rest waits for the next sweep. Default 50. */
  readonly maxBatches?: number;
}

/**
 * Deletes expired rows of every instance in the schema in small batches. Expired rows are already invisible to every lookup (each
 * query compares `expires_at` with the caller's `now`), so sweeping is housekeeping only. `SKIP
 * LOCKED` lets it step around rows a request is working on, and concurrent sweepers (one per
 * process) around each other, so it never blocks a request. Returns the number of rows deleted.
 */
export async function sweepExpired(pool: Statements, t: Tables, options: SweepOptions = {}): Promise<number> {
  const now = wholeInstant(options.now ?? Date.now());
  const batchSize = options.batchSize ?? 1000;
  const maxBatches = options.maxBatches ?? 50;
  let total = 0;
  for (const table of instanceTables(t)) {
    for (let batch = 0; batch < maxBatches; batch++) {
      const { rowCount } = await pool.query(
        `DELETE FROM ${table} WHERE ctid = ANY (ARRAY(
           SELECT ctid FROM ${table} WHERE expires_at <= $1 LIMIT $2 FOR UPDATE SKIP LOCKED))`,
        [now, batchSize],
      );
      total += rowCount ?? 0;
      if ((rowCount ?? 0) < batchSize) break;
    }
  }
  return total;
}

/**
 * Runs {@link sweepExpired} every `intervalMs` on an `unref()`ed timer (it never keeps the process
 * alive), never two at once. Failures are passed to `onError` and retried at the next tick.
 * Returns the function that stops it.
 */
export function scheduleSweeps(
  sweep: () => Promise<unknown>,
  intervalMs: number,
  onError: (error: unknown) => void,
): () => void {
  let running = false;
  const timer = setInterval(() => {
    if (running) return;
    running = true;
    sweep()
      .catch(onError)
      .finally(() => {
        running = false;
      });
  }, intervalMs);
  timer.unref?.();
  return () => clearInterval(timer);
}
