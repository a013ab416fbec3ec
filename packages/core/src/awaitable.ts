/**
 * A value, or a promise of it. The bearer check returns this on its way up: a result known at once
 * (a token verified before, a store that answers revocation synchronously) goes back to the server
 * without waiting for a turn of the microtask queue, which on a busy API is a measurable share of
 * every request (bench/RESULTS.md, run H).
 */
export type Awaitable<T> = T | Promise<T>;

/**
 * `next(value)` at once when `value` is ready, else once it resolves (and a rejection passes
 * through). Values given here are never promise-like unless they are `Promise`s of this realm:
 * anything from outside (a store's answer) is passed through `Promise.resolve` first.
 */
export function andThen<T, R>(value: Awaitable<T>, next: (value: T) => Awaitable<R>): Awaitable<R> {
  return value instanceof Promise ? value.then(next) : next(value);
}
