import type { JWK } from 'jose';
import type { EpochMs, Milliseconds } from '../../time.js';
import { SIGNING_ALGORITHMS, type SigningAlgorithm } from '../keys.js';

/**
 * The record of an instance's stored signing keys, one key-value entry (`KEY_SET_KEY`) replaced as
 * a whole with compare-and-set, so that processes changing it at once agree: one wins, the others
 * read it again. The private keys are sealed (key-encryption.ts); the rest is public.
 */
export interface StoredKeyRecord {
  readonly v: 1;
  /**
   * Counts the record's writes: each write stores the generation it replaced plus one, so a record
   * older than one a process has seen is recognised (rollback). Absent in records written before
   * records were authenticated.
   */
  readonly generation?: number;
  /**
   * `kekId.hmac`: HMAC-SHA-256, under a key derived from the key-encryption key, of
   * {@link recordContent} (issuer, generation, every key's `kid`, algorithm, times, public and
   * sealed key). Absent in records written before; such a record is authenticated at its next write.
   */
  readonly mac?: string;
  readonly keys: readonly StoredKey[];
}

/**
 * What a record's MAC covers: the issuer (a record moved to another instance does not verify), its
 * generation, and each key's every field in the record's order, the public JWK with its members
 * sorted. Adding, removing (a revocation), restoring a key or moving its `signsFrom` changes it.
 */
export function recordContent(issuer: string, generation: number, keys: readonly StoredKey[]): string {
  return JSON.stringify([
    'gatehouse signing-key record',
    issuer,
    generation,
    keys.map((key) => [
      key.kid,
      key.alg,
      key.publishedAt,
      key.signsFrom,
      key.sealed,
      Object.keys(key.jwk)
        .sort()
        .map((name) => [name, (key.jwk as Record<string, unknown>)[name]]),
    ]),
  ]);
}

/** One stored key. */
export interface StoredKey {
  readonly kid: string;
  readonly alg: SigningAlgorithm;
  /** When it was stored, and so published in the JWKS by every process within the refresh interval. */
  readonly publishedAt: EpochMs;
  /** When it starts signing: it signs until the next key of its algorithm starts. */
  readonly signsFrom: EpochMs;
  /** The public JWK (as published). */
  readonly jwk: JWK;
  /** The private JWK, JSON, sealed under the KEK (`kekId.iv.ciphertext`). */
  readonly sealed: string;
}

/** The key of the record in the instance's key-value store. */
export const KEY_SET_KEY = 'signing-keys';

/**
 * How long the record is kept, renewed on every write: far longer than any schedule (durations are
 * at most a year), so it only ends for an instance no process has run for five years.
 */
export const KEY_SET_RECORD_TTL_MS: Milliseconds = 5 * 366 * 86_400_000;

/** The schedule durations a plan needs (milliseconds). */
export interface Schedule {
  readonly rotateEveryMs: Milliseconds;
  readonly leadTimeMs: Milliseconds;
  readonly retainForMs: Milliseconds;
  readonly refreshMs: Milliseconds;
}

/** Parses a stored record; throws on anything that is not one (the caller reports it). */
export function parseKeyRecord(text: string): StoredKeyRecord {
  const record = JSON.parse(text) as StoredKeyRecord;
  if (record?.v !== 1 || !Array.isArray(record.keys)) throw new Error('not a signing key record (v1)');
  // Both or neither: a record of an earlier version has neither.
  if ((record.mac === undefined) !== (record.generation === undefined))
    throw new Error('the record has a generation without a MAC, or a MAC without a generation');
  if (
    record.generation !== undefined &&
    (!Number.isSafeInteger(record.generation) || record.generation < 1 || typeof record.mac !== 'string')
  )
    throw new Error('the record has a malformed generation or MAC');
  for (const key of record.keys) {
    if (
      typeof key?.kid !== 'string' ||
      !SIGNING_ALGORITHMS.includes(key.alg) ||
      !Number.isFinite(key.publishedAt) ||
      !Number.isFinite(key.signsFrom) ||
      typeof key.jwk !== 'object' ||
      key.jwk === null ||
      typeof key.sealed !== 'string'
    )
      throw new Error('a stored signing key is malformed');
  }
  return record;
}

/** The keys of `algorithm`, by `signsFrom` (then `publishedAt`, then `kid`: every process orders them alike). */
export function keysOf(record: StoredKeyRecord, algorithm: SigningAlgorithm): StoredKey[] {
  return record.keys
    .filter((key) => key.alg === algorithm)
    .sort((a, b) => a.signsFrom - b.signsFrom || a.publishedAt - b.publishedAt || (a.kid < b.kid ? -1 : 1));
}

/** The key of `algorithm` that signs at `now`: the latest one started. */
export function signingKeyAt(ordered: readonly StoredKey[], now: EpochMs): StoredKey | undefined {
  let current: StoredKey | undefined;
  for (const key of ordered) if (key.signsFrom <= now) current = key;
  return current;
}

/**
 * When a key that stopped signing at `endedAt` is dropped: once every token it signed has expired
 * (`retainFor`), counting the refresh interval, during which a process that has not re-read the
 * record after an on-demand rotation may still sign with it.
 */
export function dropTime(endedAt: EpochMs, schedule: Schedule): EpochMs {
  return endedAt + schedule.retainForMs + schedule.refreshMs;
}

/**
 * The earliest a key published at `publishedAt` may sign: after `leadTime` in every process's
 * JWKS. A process publishes it once it re-reads the record, up to `refreshInterval` later.
 */
export function earliestStart(publishedAt: EpochMs, schedule: Schedule): EpochMs {
  return publishedAt + schedule.leadTimeMs + schedule.refreshMs;
}

/** What the record of one algorithm needs at `now`: see {@link planMaintenance}. */
export interface MaintenancePlan {
  /** The keys kept, some with an earlier `signsFrom` (a next key that must start now). */
  readonly keep: StoredKey[];
  /** The keys dropped: retained long enough after they stopped signing. */
  readonly dropped: StoredKey[];
  /** The `signsFrom` of a key to generate, when the algorithm has no key to sign next (or none at all). */
  readonly generateAt: EpochMs | undefined;
}

/**
 * The upkeep of one algorithm's keys at `now`:
 * - a key is dropped once {@link dropTime} after the next key started;
 * - with no key signing (a fresh record, or the signing key revoked), the next key starts now, and
 *   without one a key is generated that signs at once: a fresh instance has no relying party that
 *   cached its JWKS, and after a revocation no key should wait;
 * - with no next key, one is generated, to start `rotateEvery` after the signing key started, and
 *   never before {@link earliestStart}.
 */
export function planMaintenance(
  ordered: readonly StoredKey[],
  now: EpochMs,
  schedule: Schedule,
): MaintenancePlan {
  const keep: StoredKey[] = [];
  const dropped: StoredKey[] = [];
  ordered.forEach((key, index) => {
    const successor = ordered[index + 1];
    if (successor !== undefined && dropTime(successor.signsFrom, schedule) <= now) dropped.push(key);
    else keep.push(key);
  });
  let current = signingKeyAt(keep, now);
  if (current === undefined) {
    const next = keep[0];
    if (next === undefined) return { keep, dropped, generateAt: now };
    current = { ...next, signsFrom: now };
    keep[0] = current;
  }
  const hasNext = keep.some((key) => key.signsFrom > now);
  return {
    keep,
    dropped,
    generateAt: hasNext
      ? undefined
      : Math.max(current.signsFrom + schedule.rotateEveryMs, earliestStart(now, schedule)),
  };
}
