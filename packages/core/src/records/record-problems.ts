import type { Logger } from '../events.js';
import { recordedText } from '../recorded-text.js';

/** Most records remembered as logged; beyond it the oldest is forgotten (and may be logged again). */
const MAX_REMEMBERED = 1000;

/**
 * Logs each refused host record once, not on every request that meets it: the log line names the
 * record (`client "x"`, `user "y"`), the store method that returned it and every problem. It is
 * logged again only when its problems change (a fix that broke something else), or after
 * {@link MAX_REMEMBERED} other records pushed it out. Bounded: at most 1,000 remembered lines.
 */
export class RecordProblems {
  readonly #logger: Logger;
  readonly #logged = new Map<string, string>();

  constructor(logger: Logger) {
    this.#logger = logger;
  }

  /** Reports `problems` (non-empty) of the record of `what` (e.g. `client "web"`), from `source`. */
  report(what: string, source: string, problems: readonly string[]): void {
    const text = problems.join('; ');
    if (this.#logged.get(what) === text) return;
    this.#logged.delete(what);
    if (this.#logged.size >= MAX_REMEMBERED) this.#logged.delete(this.#logged.keys().next().value!);
    this.#logged.set(what, text);
    this.#logger.error(
      `gatehouse: ${what} is refused: ${source} returned an invalid record: ${text}. Requests for it get a 4xx until the record is fixed.`,
    );
  }
}

/** `client "id"` (quoted, cut by `recordedText`), as log lines name a client. */
export const clientNamed = (clientId: string) => `client ${JSON.stringify(recordedText(clientId))}`;

/** `user "id"` (quoted, cut by `recordedText`), as log lines name a user. */
export const userNamed = (userId: string) => `user ${JSON.stringify(recordedText(userId))}`;
