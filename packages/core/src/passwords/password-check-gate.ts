/** What {@link PasswordCheckGate.run} came to. */
export type GatedCheck<T> =
  /** The check ran and gave `value`. */
  | { readonly status: 'ran'; readonly value: T }
  /** Every place and every queue slot was taken: the check did not run. */
  | { readonly status: 'busy' }
  /** The client went away before the check's turn: it did not run. */
  | { readonly status: 'gone' };

interface Waiter {
  admit(): void;
}

const BUSY = { status: 'busy' } as const;
const GONE = { status: 'gone' } as const;

/**
 * Bounds the password checks in flight on one instance. A password hash is deliberately expensive
 * (tens to hundreds of milliseconds of CPU), so without a bound any burst of attempts — distinct
 * usernames from many addresses, each under its rate limit — queues unbounded work, and a
 * legitimate login waits behind all of it. Here at most `maxConcurrent` checks run at once, up to
 * `maxQueued` more wait in line (first come, first served), and a check arriving beyond that is
 * refused at once (the caller answers 503 with `Retry-After`). A legitimate login therefore waits
 * for at most `maxConcurrent + maxQueued` checks, or is told to retry.
 *
 * A waiting check whose client goes away (its `signal` aborts) leaves the line without running, so
 * requests that reset their connection hold no place. Runtime-neutral: only promises and
 * `AbortSignal`. One gate per instance, on the instance context.
 */
export class PasswordCheckGate {
  #running = 0;
  readonly #waiting: Waiter[] = [];

  /**
   * @param maxConcurrent Checks allowed to run at once (at least 1).
   * @param maxQueued Checks allowed to wait for a place (0 or more).
   */
  constructor(
    readonly maxConcurrent: number,
    readonly maxQueued: number,
  ) {}

  /** Whether a check arriving now would be refused as busy. */
  get full(): boolean {
    return this.#running >= this.maxConcurrent && this.#waiting.length >= this.maxQueued;
  }

  /**
   * Runs `check` once a place is free, unless the gate is full (`busy`) or `signal` aborts before
   * its turn, or had already (`gone`).
   */
  async run<T>(check: () => Promise<T>, signal?: AbortSignal): Promise<GatedCheck<T>> {
    if (signal?.aborted) return GONE;
    if (this.#running < this.maxConcurrent) this.#running++;
    else if (this.#waiting.length >= this.maxQueued) return BUSY;
    else if (!(await this.#wait(signal))) return GONE;
    try {
      // The client may have left just as its turn came.
      if (signal?.aborted) return GONE;
      return { status: 'ran', value: await check() };
    } finally {
      this.#release();
    }
  }

  /** Waits in line: `true` once given a place (the releasing check hands its own over), `false` if the client left. */
  #wait(signal: AbortSignal | undefined): Promise<boolean> {
    return new Promise((resolve) => {
      const leave = () => {
        const index = this.#waiting.indexOf(waiter);
        if (index >= 0) this.#waiting.splice(index, 1);
        resolve(false);
      };
      const waiter: Waiter = {
        admit() {
          signal?.removeEventListener('abort', leave);
          resolve(true);
        },
      };
      signal?.addEventListener('abort', leave, { once: true });
      this.#waiting.push(waiter);
    });
  }

  /** Hands the place over to the next waiting check, or frees it. */
  #release(): void {
    const next = this.#waiting.shift();
    if (next) next.admit();
    else this.#running--;
  }
}
