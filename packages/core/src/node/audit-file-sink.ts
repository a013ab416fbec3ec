import { createWriteStream } from 'node:fs';
import type { AuditSink } from '../audit/audit-record.js';
import { jsonLinesAuditSink } from '../audit/json-lines-sink.js';

/** An audit sink that can be closed (flushes and closes its file). */
export interface ClosableAuditSink extends AuditSink {
  close(): Promise<void>;
}

/**
 * An audit sink appending JSON lines to the file at `path` (created if missing, never truncated),
 * through one write stream: writes are buffered in order and never block a request. A failure to
 * open or write the file is reported through the instance's logger (the stream's `error`, once, and
 * each later write). Call `close()` when shutting down to flush what is buffered.
 */
export function fileAuditSink(path: string): ClosableAuditSink {
  const stream = createWriteStream(path, { flags: 'a', encoding: 'utf8' });
  let failure: Error | undefined;
  stream.on('error', (error) => {
    failure = error;
  });
  const lines = jsonLinesAuditSink((line) => {
    if (failure) return Promise.reject(failure);
    stream.write(line);
    return undefined;
  });
  return {
    write: (record) => lines.write(record),
    close: () =>
      new Promise<void>((resolve, reject) => {
        stream.end((error?: Error | null) => (error ? reject(error) : resolve()));
      }),
  };
}
