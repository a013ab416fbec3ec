/**
 * The stores Gatehouse builds on the instance's key-value store (host contract v3): sessions,
 * consents, rate-limit windows and replay ids. Handlers take these narrow interfaces; hosts no
 * longer implement them (they implement `KeyValueStore`, or take an engine). See `stores.ts`.
 */

import type { EpochMs, Milliseconds } from '../../time.js';
import type { ConsentRecord, KeyValueWriteOptions, RateLimitWindow, SessionRecord } from '../types.js';

/** Server-side sessions. */
export interface SessionStore {
  createSession(record: SessionRecord): Promise<void>;
  /** The session if it exists and `expiresAt > now` (the idle timeout is Gatehouse's check). */
  findSession(idHash: string, now: EpochMs): Promise<SessionRecord | null>;
  /** Records activity (sliding idle timeout). A missing session is ignored. */
  touchSession(idHash: string, lastSeenAt: EpochMs): Promise<void>;
  /** Removes a session. Idempotent. */
  deleteSession(idHash: string): Promise<void>;
}

/** Remembered consents, so that the consent page is shown once per user, client and scope. */
export interface ConsentStore {
  findConsent(userId: string, clientId: string, now: EpochMs): Promise<ConsentRecord | null>;
  /** Stores or replaces the consent of this user for this client. */
  saveConsent(record: ConsentRecord): Promise<void>;
  /**
   * Forgets the consent of this user for this client (idempotent), so that the client's next
   * authorization request asks again (`gatehouse.revokeGrant`).
   */
  deleteConsent(userId: string, clientId: string): Promise<void>;
}

/**
 * Counters for failed password attempts (and anything else worth limiting). Gatehouse's keys are
 * short (digests and a bucket number, about 60 characters), and every window expires after at most
 * two rate-limit windows.
 */
export interface RateLimitStore {
  /** The current window of `key`, or `null` when there is none or it has ended. */
  get(key: string, now: EpochMs): Promise<RateLimitWindow | null>;
  /**
   * Atomically adds one to `key`, starting a new window of `windowMs` when there is none or it has
   * ended, and returns the window after the increment.
   *
   * When the key-value store has no room for a new window (`StoreFullError`), it stores nothing
   * and answers a window counted `Number.MAX_SAFE_INTEGER` (over any limit, so the attempt is
   * refused). `options.partition` names who pays for a new window (`KeyValueWriteOptions`): a bounded
   * engine that evicts it to make room refuses that partition's new windows until it would have
   * ended, so an evicted counter never resets anyone's limit.
   */
  increment(
    key: string,
    windowMs: Milliseconds,
    now: EpochMs,
    options?: KeyValueWriteOptions,
  ): Promise<RateLimitWindow>;
  /** Forgets `key` (e.g. after a successful login). Idempotent. */
  reset(key: string): Promise<void>;
}

/**
 * Single-use identifiers (the `jti` of private_key_jwt client assertions, RFC 7523 §3; later DPoP
 * proofs, RFC 9449 §11.1), remembered until they expire.
 */
export interface ReplayStore {
  /**
   * Atomically records `id` as used until `expiresAt`. Resolves `true` for the first use only:
   * among any number of concurrent callers (in any number of processes), at most one gets `true`
   * while the id is remembered; later callers get `false`. When the id cannot be remembered (the
   * key-value store is full) it answers `false`: refusing a proof is safe, accepting a replay is not.
   *
   * `partition` names who the id belongs to (e.g. one client, for its assertions); absent, the id
   * belongs to no one in particular. Each partition has a quota of new ids per window, so one party
   * (anyone can register a client) fills only its own share and never locks out the others. It
   * does not scope the id: callers make ids unique across partitions themselves. `quota`, when
   * given, is that partition's quota instead of the store's (a client registered for more, e.g. a
   * resource server making one assertion per introspection).
   */
  useOnce(id: string, expiresAt: EpochMs, now: EpochMs, partition?: string, quota?: number): Promise<boolean>;
}
