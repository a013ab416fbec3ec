import { oauthError } from '../errors.js';
import type { EpochMs, Milliseconds } from '../time.js';
import { clientNetwork } from './client-network.js';

/**
 * Limits of a {@link BoundedFetchCache}. Every number here bounds what an unauthenticated request
 * can make the server fetch or keep (docs/security.md, "Stored state" and "Outbound requests").
 */
export interface FetchCacheLimits {
  /** Estimated bytes of memory the kept answers and remembered failures may take together. */
  readonly maxBytes: number;
  /** Fetches in flight at once (one outbound connection each); beyond it: 503. */
  readonly maxConcurrent: number;
  /** Fetches in flight at once to one origin (scheme, host, port); beyond it: 503. */
  readonly maxConcurrentPerOrigin: number;
  /** Fetches in flight at once started by one client address (IPv6: /64); beyond it: 429. */
  readonly maxConcurrentPerAddress: number;
  /** How long a failed fetch is remembered (answered from memory, no new fetch), in milliseconds. */
  readonly failureMs: Milliseconds;
}

/** What a loader made of one fetch: the value kept, its estimated size and how long it may be used. */
export interface Loaded<T> {
  readonly value: T;
  /** Estimated bytes of memory the value takes (charged to {@link FetchCacheLimits.maxBytes}). */
  readonly bytes: number;
  /** The value is never used after this instant (the answer's cache lifetime, within bounds). */
  readonly expiresAt: EpochMs;
  /**
   * The value is dropped when nobody used it for this long: a document fetched once and never
   * used again stays the minimum time, not the lifetime its (possibly hostile) server asked for.
   */
  readonly idleMs: Milliseconds;
}

/** Who asks for a fetch: the request, charged per address before anything is fetched. */
export interface FetchCaller {
  readonly address: string | undefined;
  /** Charges one fetch to the caller's address; throws 429 when its budget is spent. */
  readonly charge: () => Promise<void>;
}

interface Entry<T> {
  readonly outcome: { readonly value: T } | { readonly failure: unknown };
  readonly bytes: number;
  readonly fetchedAt: EpochMs;
  readonly expiresAt: EpochMs;
  readonly idleMs: Milliseconds;
  usedAt: EpochMs;
}

/** Estimated bytes of a remembered failure: its key and the bookkeeping around it. */
const FAILURE_BYTES = 512;

/**
 * The one way Gatehouse fetches and keeps documents that a request names by URL (client ID
 * metadata documents, `jwks_uri` key sets): a process-local cache, never written to a storage
 * engine (a document can always be fetched again), bounded in every dimension an anonymous caller
 * controls:
 * - memory: answers and failures are kept least recently used first within `maxBytes`, each for
 *   at most its `expiresAt` and dropped after `idleMs` without use;
 * - outbound work: one fetch per URL at a time (concurrent callers share it), at most
 *   `maxConcurrent` in flight, `maxConcurrentPerOrigin` per origin (a slow host cannot take every
 *   slot) and `maxConcurrentPerAddress` per caller, and each fetch is charged to the caller's
 *   address (its budget is the caller's, see `http/address-rate-limit.ts`);
 * - repetition: a failed fetch is remembered for `failureMs`, so a failing URL costs one fetch per
 *   interval, not one per request.
 */
export class BoundedFetchCache<T> {
  readonly #limits: FetchCacheLimits;
  readonly #what: string;
  readonly #entries = new Map<string, Entry<T>>();
  #bytes = 0;
  readonly #inFlight = new Map<string, Promise<T>>();
  readonly #perOrigin = new Map<string, number>();
  readonly #perAddress = new Map<string, number>();

  /** `what` names the documents in the 503 and 429 descriptions ("client metadata documents"). */
  constructor(limits: FetchCacheLimits, what: string) {
    this.#limits = limits;
    this.#what = what;
  }

  /**
   * The value of `url`: kept when live (a remembered failure is thrown again), else loaded by
   * `load`, which throws to refuse (the error is remembered for `failureMs` and thrown). With
   * `refreshOlderThanMs`, a kept value fetched longer ago than that is fetched again. Throws 503
   * `temporarily_unavailable` when the fetch would exceed the global or per-origin cap, 429
   * `too_many_requests` when it exceeds the caller's share or budget.
   */
  async get(
    url: string,
    now: EpochMs,
    load: () => Promise<Loaded<T>>,
    options: { readonly caller?: FetchCaller; readonly refreshOlderThanMs?: Milliseconds } = {},
  ): Promise<T> {
    const kept = this.#live(url, now);
    if (
      kept &&
      !(options.refreshOlderThanMs !== undefined && now - kept.fetchedAt >= options.refreshOlderThanMs)
    ) {
      kept.usedAt = now;
      this.#entries.delete(url);
      this.#entries.set(url, kept);
      if ('failure' in kept.outcome) throw kept.outcome.failure;
      return kept.outcome.value;
    }
    const pending = this.#inFlight.get(url);
    if (pending) return pending;
    const origin = originOf(url);
    const network = options.caller?.address === undefined ? 'unknown' : clientNetwork(options.caller.address);
    this.#refuseBeyondCaps(origin, network);
    if (options.caller) {
      await options.caller.charge();
      // The charge awaited the rate-limit store: another caller may have started this fetch, or
      // taken the last slot, meanwhile.
      const started = this.#inFlight.get(url);
      if (started) return started;
      this.#refuseBeyondCaps(origin, network);
    }
    const fetching = this.#fetch(url, now, load);
    const release = () => {
      this.#inFlight.delete(url);
      decrement(this.#perOrigin, origin);
      decrement(this.#perAddress, network);
    };
    this.#inFlight.set(url, fetching);
    increment(this.#perOrigin, origin);
    increment(this.#perAddress, network);
    fetching.then(release, release);
    return fetching;
  }

  /**
   * The live value kept for `url` (counted as a use), or `undefined`: nothing kept, or a remembered
   * failure. Fetches nothing.
   */
  peek(url: string, now: EpochMs): T | undefined {
    const kept = this.#live(url, now);
    if (!kept || 'failure' in kept.outcome) return undefined;
    kept.usedAt = now;
    this.#entries.delete(url);
    this.#entries.set(url, kept);
    return kept.outcome.value;
  }

  /**
   * Keeps `loaded` for `url` as if fetched at `now`, within the same bounds (for a value learnt
   * otherwise than by this cache's own fetch: an answer another cache fetched).
   */
  remember(url: string, now: EpochMs, loaded: Loaded<T>): void {
    this.#keep(url, {
      outcome: { value: loaded.value },
      bytes: loaded.bytes + 2 * url.length,
      fetchedAt: now,
      expiresAt: loaded.expiresAt,
      idleMs: loaded.idleMs,
      usedAt: now,
    });
  }

  #refuseBeyondCaps(origin: string, network: string): void {
    const limits = this.#limits;
    if ((this.#perAddress.get(network) ?? 0) >= limits.maxConcurrentPerAddress)
      throw oauthError(
        'too_many_requests',
        `Too many ${this.#what} are being fetched for this address; try again shortly.`,
        { retryAfter: 1 },
      );
    if (
      this.#inFlight.size >= limits.maxConcurrent ||
      (this.#perOrigin.get(origin) ?? 0) >= limits.maxConcurrentPerOrigin
    )
      throw oauthError(
        'temporarily_unavailable',
        `Too many ${this.#what} are being fetched; try again shortly.`,
        {
          retryAfter: 1,
        },
      );
  }

  async #fetch(url: string, now: EpochMs, load: () => Promise<Loaded<T>>): Promise<T> {
    let loaded: Loaded<T>;
    try {
      loaded = await load();
    } catch (failure) {
      this.#keep(url, {
        outcome: { failure },
        bytes: FAILURE_BYTES + 2 * url.length,
        fetchedAt: now,
        expiresAt: now + this.#limits.failureMs,
        idleMs: this.#limits.failureMs,
        usedAt: now,
      });
      throw failure;
    }
    this.remember(url, now, loaded);
    return loaded.value;
  }

  /** The entry of `url` when it is live at `now`; a dead one is dropped. */
  #live(url: string, now: EpochMs): Entry<T> | undefined {
    const entry = this.#entries.get(url);
    if (!entry) return undefined;
    if (now < entry.expiresAt && now - entry.usedAt < entry.idleMs) return entry;
    this.#drop(url, entry);
    return undefined;
  }

  #keep(url: string, entry: Entry<T>): void {
    const previous = this.#entries.get(url);
    if (previous) this.#drop(url, previous);
    // Too large, or never usable (a failure with `failureMs` 0, an answer not to be reused).
    if (entry.bytes > this.#limits.maxBytes || entry.expiresAt <= entry.fetchedAt) return;
    this.#entries.set(url, entry);
    this.#bytes += entry.bytes;
    // Least recently used first: a Map iterates in insertion order, and a use re-inserts.
    for (const [oldest, old] of this.#entries) {
      if (this.#bytes <= this.#limits.maxBytes) break;
      this.#drop(oldest, old);
    }
  }

  #drop(url: string, entry: Entry<T>): void {
    this.#entries.delete(url);
    this.#bytes -= entry.bytes;
  }
}

function originOf(url: string): string {
  try {
    return new URL(url).origin;
  } catch {
    return url;
  }
}

function increment(counts: Map<string, number>, key: string): void {
  counts.set(key, (counts.get(key) ?? 0) + 1);
}

function decrement(counts: Map<string, number>, key: string): void {
  const count = (counts.get(key) ?? 0) - 1;
  if (count <= 0) counts.delete(key);
  else counts.set(key, count);
}
