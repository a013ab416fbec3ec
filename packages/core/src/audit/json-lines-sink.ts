import type { AuditRecord, AuditSink } from './audit-record.js';

/**
 * An audit sink writing one JSON object per line (JSON Lines) to `write`: the host's stream, on
 * any runtime — `(line) => process.stdout.write(line)` on Node.js, `(line) => writer.write(line)`
 * for a `WritableStream`'s writer, a log shipper's function. Each line ends with `\n`. What `write`
 * returns (a promise) is passed on, so a rejection is logged by the instance.
 */
export function jsonLinesAuditSink(write: (line: string) => unknown): AuditSink {
  if (typeof write !== 'function')
    throw new TypeError('jsonLinesAuditSink: expected a function taking a line.');
  return {
    write(record: AuditRecord) {
      const written = write(`${JSON.stringify(record)}\n`);
      return written instanceof Promise ? written.then(() => {}) : undefined;
    },
  };
}
