import type { AuditRecord, AuditSink } from '../audit/audit-record.js';
import type { EpochMs } from '../time.js';

/*
 * What the admin API shows of the recent past, kept in this process and bounded: the audit records
 * of the instance's events (newest {@link AUDIT_RECORDS}) and per-minute counters of the last hour
 * (tokens issued per grant type, refusals by reason). Fed by the instance's events as an audit
 * sink, whatever the host's own sinks are; nothing a request sends is kept but what its events
 * already carry (each text field cut to 256 characters, `recordedText`).
 */

/** Audit records kept for `readAudit`: the newest ones of this process. */
export const AUDIT_RECORDS = 1000;
/** Minutes of counters (`metrics`): the last hour, one bucket a minute. */
export const METRIC_MINUTES = 60;
/** Names per series (grant types, refusal reasons); later ones are counted under `other`. */
export const METRIC_NAMES = 32;

const MINUTE_MS = 60_000;

interface Bucket {
  /** The bucket's minute (epoch ms / 60,000), or -1 while unused. */
  minute: number;
  readonly counts: Map<string, number>[];
}

/** The series of {@link AdminRecorder.metrics}. */
export const SERIES = ['tokensIssued', 'refusals'] as const;
export type SeriesName = (typeof SERIES)[number];

/** Per-minute counts of the last hour (`metrics`), oldest minute first. */
export interface MetricsSnapshot {
  /** The start of the oldest minute (ISO 8601). */
  readonly since: string;
  /** The end of the current minute (ISO 8601). */
  readonly until: string;
  readonly bucketSeconds: 60;
  readonly series: Readonly<Record<SeriesName, Readonly<Record<string, number[]>>>>;
}

/** Filters of `readAudit` (every one optional). */
export interface AuditQuery {
  readonly type?: string;
  readonly subject?: string;
  readonly clientId?: string;
  /** Records at or after this instant (epoch ms). */
  readonly since?: EpochMs;
  readonly limit: number;
}

/** The admin API's recent audit records and counters of one instance, in this process. */
export class AdminRecorder implements AuditSink {
  /** A ring: `#records[#next]` is the oldest once full. */
  readonly #records: AuditRecord[] = [];
  #next = 0;
  readonly #buckets: Bucket[] = Array.from({ length: METRIC_MINUTES }, () => ({
    minute: -1,
    counts: SERIES.map(() => new Map<string, number>()),
  }));
  /** The names seen per series, at most {@link METRIC_NAMES} each. */
  readonly #names: Set<string>[] = SERIES.map(() => new Set<string>());
  /** The last minute a record was counted in, as text (`2026-12-07T09:41`) and epoch ms ({@link #timeOf}). */
  #lastMinuteText = '\u0000';
  #lastMinuteTime = 0;

  write(record: AuditRecord): void {
    if (this.#records.length < AUDIT_RECORDS) this.#records.push(record);
    else {
      this.#records[this.#next] = record;
      this.#next = (this.#next + 1) % AUDIT_RECORDS;
    }
    if (record.type === 'token.issued')
      this.#count(0, this.#timeOf(record), record.details?.grantType ?? 'unknown');
    else if (record.outcome === 'failure') this.#count(1, this.#timeOf(record), record.reason ?? record.type);
  }

  /**
   * The record's time as epoch ms, to the minute (all {@link #count} needs): records come in their
   * thousands a minute, so the last minute's text (`2026-12-07T09:41`) is compared instead of
   * parsing every timestamp.
   */
  #timeOf(record: AuditRecord): EpochMs {
    const text = record.time;
    if (text.length === this.#lastMinuteText.length + 8 && text.startsWith(this.#lastMinuteText))
      return this.#lastMinuteTime;
    const time = Date.parse(text);
    // `YYYY-MM-DDTHH:MM:SS.sssZ` (toISOString between the years 0 and 9999) only.
    if (text.length === 24 && time >= 0) {
      this.#lastMinuteText = text.slice(0, 16);
      this.#lastMinuteTime = time - (time % MINUTE_MS);
    }
    return time;
  }
  /** The newest records matching `query`, newest first, at most `query.limit`. */
  audit(query: AuditQuery): AuditRecord[] {
    const found: AuditRecord[] = [];
    const total = this.#records.length;
    for (let i = 1; i <= total && found.length < query.limit; i++) {
      // Newest first: the one before #next (once full), else the end of the list.
      const record = this.#records[(this.#next - i + total) % total]!;
      if (query.type !== undefined && record.type !== query.type) continue;
      if (query.subject !== undefined && record.subject !== query.subject) continue;
      if (query.clientId !== undefined && record.clientId !== query.clientId) continue;
      if (query.since !== undefined && Date.parse(record.time) < query.since) continue;
      found.push(record);
    }
    return found;
  }

  /** The counters of the {@link METRIC_MINUTES} minutes up to `now`'s, oldest first. */
  metrics(now: EpochMs): MetricsSnapshot {
    const current = Math.floor(now / MINUTE_MS);
    const first = current - METRIC_MINUTES + 1;
    const series = SERIES.map((_, s) => {
      const values: Record<string, number[]> = {};
      for (const name of this.#names[s]!) values[name] = new Array<number>(METRIC_MINUTES).fill(0);
      for (let minute = first; minute <= current; minute++) {
        const bucket = this.#buckets[minute % METRIC_MINUTES]!;
        if (bucket.minute !== minute) continue;
        for (const [name, count] of bucket.counts[s]!) values[name]![minute - first] = count;
      }
      return values;
    });
    return {
      since: new Date(first * MINUTE_MS).toISOString(),
      until: new Date((current + 1) * MINUTE_MS).toISOString(),
      bucketSeconds: 60,
      series: { tokensIssued: series[0]!, refusals: series[1]! },
    };
  }

  #count(series: number, time: EpochMs, given: string): void {
    if (!Number.isFinite(time)) return;
    const names = this.#names[series]!;
    const name = names.has(given) || names.size < METRIC_NAMES - 1 ? given : 'other';
    names.add(name);
    const minute = Math.floor(time / MINUTE_MS);
    const bucket = this.#buckets[minute % METRIC_MINUTES]!;
    if (bucket.minute > minute) return; // an event of a minute already past the hour
    if (bucket.minute !== minute) {
      bucket.minute = minute;
      for (const counts of bucket.counts) counts.clear();
    }
    const counts = bucket.counts[series]!;
    counts.set(name, (counts.get(name) ?? 0) + 1);
  }
}
