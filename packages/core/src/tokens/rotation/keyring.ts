import { type CryptoKey, decodeProtectedHeader, importJWK, type JWK } from 'jose';
import { ConfigurationError, StorageUnavailableError } from '../../errors.js';
import type { GatehouseEvent, Logger } from '../../events.js';
import type { KeyValueStore } from '../../storage/types.js';
import type { EpochMs } from '../../time.js';
import {
  generateKeys,
  type KeyMaterial,
  type KeySet,
  keySetOf,
  type PrivateJwk,
  publicJwkOf,
  type SigningAlgorithm,
  type SigningKey,
  signingKeyOf,
} from '../keys.js';
import type { VerifiedTokenCache } from '../verified-token-cache.js';
import {
  authenticateRecord,
  importKeyEncryptionKey,
  isAuthenticRecord,
  type KeyEncryptionKey,
  open,
  seal,
} from './key-encryption.js';
import type { KeyRotationSettings } from './settings.js';
import type { RotateOptions, SigningKeyInfo, SigningKeys } from './signing-keys.js';
import {
  dropTime,
  earliestStart,
  KEY_SET_KEY,
  KEY_SET_RECORD_TTL_MS,
  keysOf,
  parseKeyRecord,
  planMaintenance,
  recordContent,
  type StoredKey,
  type StoredKeyRecord,
  signingKeyAt,
} from './stored-keys.js';

/** What the keyring needs of its instance. */
export interface KeyringDependencies {
  /** The instance's key-value store (guarded: failures are `StorageUnavailableError`). */
  readonly kv: KeyValueStore;
  readonly settings: KeyRotationSettings;
  /** Binds each sealed key to this issuer (additional authenticated data). */
  readonly issuer: string;
  /** The access tokens' algorithm. */
  readonly algorithm: SigningAlgorithm;
  /** The keys of `keys` and `signers`: they verify (and sign the algorithms not rotated). */
  readonly fixed: KeyMaterial;
  readonly now: () => EpochMs;
  readonly emit: (event: GatehouseEvent) => void;
  readonly logger: Logger;
  /** Tokens of a key that left the record are forgotten here, so that they are verified again. */
  readonly verifiedTokens: VerifiedTokenCache;
}

/** A stored key, opened: its signer and its public key. */
interface OpenedKey {
  readonly privateJwk: PrivateJwk;
  readonly publicJwk: JWK;
  readonly publicKey: CryptoKey;
  readonly signer: SigningKey;
}

/** A change of the record asked for by `rotate` or `revoke`, applied before the upkeep. */
type Change = (record: StoredKeyRecord, now: EpochMs, events: GatehouseEvent[]) => StoredKeyRecord;

/** Compare-and-set attempts of one change before giving up (each lost one means another process wrote). */
const MAX_ATTEMPTS = 8;

/** Tries to read the stored keys at start before the instance gives up (about a minute with the waits). */
const START_ATTEMPTS = 15;

/** A token of an unknown `kid` makes the process re-read the record at most once per this (ms). */
const UNKNOWN_KID_REREAD_MS = 1000;

/** `Cache-Control: max-age` of the JWKS without rotation, and its upper bound with it (seconds). */
const JWKS_MAX_AGE = 300;

/**
 * The stored signing keys of one instance in one process (`keyRotation`): reads the record from the
 * key-value store, keeps it up (generates the next key, drops retired ones) with compare-and-set,
 * and serves the current {@link KeySet} without a storage call: the signing key changes at its
 * scheduled time from the record in memory, which is re-read at most every `refreshInterval`, in
 * the background of the request that finds it stale.
 */
export class StoredKeyring implements SigningKeys {
  readonly #deps: KeyringDependencies;
  #keks: KeyEncryptionKey[] = [];
  /** The record as last read or written, and its text (what compare-and-set compares). */
  #raw: string | null = null;
  #record: StoredKeyRecord = { v: 1, keys: [] };
  /**
   * The highest generation of the record this process has adopted: a record read later with a lower
   * one (or the same one with other content, or none) is an older record put back, and refused.
   */
  #generation = 0;
  readonly #opened = new Map<string, OpenedKey>();
  /** kids whose key could not be opened (logged once each). */
  readonly #unreadable = new Set<string>();
  #snapshot: KeySet | undefined;
  /** When the record is re-read, and when the snapshot's signing key changes. */
  #staleAt = 0;
  #switchAt = Number.POSITIVE_INFINITY;
  #inflight: Promise<void> | undefined;
  /** The last {@link #sync} queued (they run one after the other). */
  #queue: Promise<void> = Promise.resolve();
  #lastUnknownKidRead = Number.NEGATIVE_INFINITY;
  readonly #jwksMaxAge: number;
  readonly #refreshFor = (kid: string) => this.#reread(kid);
  /** `undefined` (use the set at hand) while the copy is recent, else the set after a re-read. */
  readonly #fresh = (): Promise<KeySet> | undefined => {
    if (this.#deps.now() < this.#staleAt && this.#inflight === undefined) return undefined;
    return this.#refresh().then(
      () => this.current,
      (error) => {
        this.#deps.logger.warn('gatehouse: the stored signing keys could not be re-read', error);
        return this.current;
      },
    );
  };

  constructor(deps: KeyringDependencies) {
    this.#deps = deps;
    this.#jwksMaxAge = Math.min(JWKS_MAX_AGE, Math.floor(deps.settings.leadTimeMs / 2000));
  }

  /**
   * Reads (and, if needed, creates) the stored keys. Rejects with `ConfigurationError` when a key
   * that must sign cannot be opened (another KEK sealed it), or with the storage's failure.
   */
  async start(): Promise<void> {
    this.#keks = await Promise.all(this.#deps.settings.keyEncryptionKeys.map(importKeyEncryptionKey));
    // A storage engine still starting (or briefly away) is waited for, not fatal: requests wait for
    // the keys as they wait for their import, for at most START_ATTEMPTS tries.
    for (let attempt = 1; ; attempt++) {
      try {
        await this.#sync(undefined);
        break;
      } catch (error) {
        if (!(error instanceof StorageUnavailableError) || attempt >= START_ATTEMPTS) throw error;
        this.#deps.logger.warn(
          `gatehouse: the stored signing keys could not be read (attempt ${attempt} of ${START_ATTEMPTS}); retrying`,
          error,
        );
        await new Promise((resolve) => setTimeout(resolve, Math.min(500 * 2 ** (attempt - 1), 5000)));
      }
    }
    const now = this.#deps.now();
    for (const algorithm of this.#deps.settings.algorithms) {
      const current = signingKeyAt(keysOf(this.#record, algorithm), now);
      if (current && !this.#opened.has(current.kid))
        throw new ConfigurationError(
          `keyRotation.keyEncryptionKey: the stored ${algorithm} signing key "${current.kid}" cannot be decrypted: it was sealed under another key-encryption key (list that one in keyRotation.previousKeyEncryptionKeys) or altered.`,
          { code: 'ERR_CONFIG_UNREADABLE_STORED_KEY', option: 'keyRotation.keyEncryptionKey' },
        );
    }
  }

  /**
   * The key set to use now: no storage call. Past the refresh interval it starts a re-read in the
   * background (this call still answers with what is known, which stays valid: a key signs only
   * once every process has had `refreshInterval` to learn of it).
   */
  get current(): KeySet {
    const now = this.#deps.now();
    if (now >= this.#staleAt && this.#inflight === undefined) {
      this.#refresh().catch((error) =>
        this.#deps.logger.warn('gatehouse: the stored signing keys could not be re-read', error),
      );
    }
    if (this.#snapshot === undefined || now >= this.#switchAt) this.#rebuild(now);
    return this.#snapshot!;
  }

  async rotate(options: RotateOptions = {}): Promise<SigningKeyInfo[]> {
    const rotated = new Set<string>();
    await this.#sync((record, now, events) => {
      rotated.clear();
      const keys = record.keys.map((key) => {
        if (!this.#deps.settings.algorithms.includes(key.alg)) return key;
        const next = keysOf(record, key.alg).find((candidate) => candidate.signsFrom > now);
        if (next?.kid !== key.kid) return key;
        // `now: true` skips what is left of the lead time (its cost: docs/keys-and-rotation.md).
        const signsFrom = options.now
          ? now
          : Math.max(now, earliestStart(key.publishedAt, this.#deps.settings));
        rotated.add(key.kid);
        events.push({
          type: 'signing_key.rotated',
          kid: key.kid,
          algorithm: key.alg,
          signsFrom: new Date(signsFrom).toISOString(),
        });
        return { ...key, signsFrom };
      });
      return { v: 1, keys };
    });
    return this.#describe(this.#deps.now()).filter((info) => rotated.has(info.kid));
  }

  async revoke(kid: string): Promise<boolean> {
    let found = false;
    await this.#sync((record, _now, events) => {
      const key = record.keys.find((candidate) => candidate.kid === kid);
      found = key !== undefined;
      if (!key) return record;
      events.push({ type: 'signing_key.revoked', kid, algorithm: key.alg });
      return { v: 1, keys: record.keys.filter((candidate) => candidate.kid !== kid) };
    });
    return found;
  }

  async list(): Promise<SigningKeyInfo[]> {
    await this.#refresh();
    return this.#describe(this.#deps.now());
  }

  /** The stored keys at `now`, by algorithm then start. */
  #describe(now: EpochMs): SigningKeyInfo[] {
    return this.#deps.settings.algorithms.flatMap((algorithm) => {
      const ordered = keysOf(this.#record, algorithm);
      const current = signingKeyAt(ordered, now);
      return ordered.map((key, index): SigningKeyInfo => {
        const successor = ordered[index + 1];
        const state = key.signsFrom > now ? 'next' : key === current ? 'signing' : 'retired';
        return {
          kid: key.kid,
          algorithm,
          state,
          publishedAt: key.publishedAt,
          signsFrom: key.signsFrom,
          ...(successor === undefined ? {} : { signsUntil: successor.signsFrom }),
          ...(state === 'retired' && successor !== undefined
            ? { dropsAt: dropTime(successor.signsFrom, this.#deps.settings) }
            : {}),
        };
      });
    });
  }

  /** One re-read at a time: concurrent callers share it. */
  #refresh(): Promise<void> {
    this.#inflight ??= this.#sync(undefined).finally(() => {
      this.#inflight = undefined;
    });
    return this.#inflight;
  }

  /** The bounded re-read of a token of an unknown `kid`: the fresher key set if it knows the `kid`. */
  async #reread(kid: string): Promise<KeySet | undefined> {
    const now = this.#deps.now();
    if (this.#inflight === undefined) {
      if (now - this.#lastUnknownKidRead < UNKNOWN_KID_REREAD_MS) return undefined;
      this.#lastUnknownKidRead = now;
    }
    try {
      await this.#refresh();
    } catch (error) {
      this.#deps.logger.warn('gatehouse: the stored signing keys could not be re-read', error);
      return undefined;
    }
    const keys = this.current;
    return keys.verificationKeys.has(kid) ? keys : undefined;
  }

  /**
   * Reads the record, applies `change` and the upkeep, and writes it back with compare-and-set when
   * anything changed; a lost race reads again. Emits the events of the write that won.
   */
  #sync(change: Change | undefined): Promise<void> {
    // One at a time in a process: a re-read that finished after a revocation must not adopt the
    // record it read before it (the revoked key would verify here again until the next re-read).
    const run = this.#queue.then(() => this.#syncNow(change));
    this.#queue = run.catch(() => {});
    return run;
  }

  async #syncNow(change: Change | undefined): Promise<void> {
    const { kv } = this.#deps;
    for (let attempt = 0; attempt < MAX_ATTEMPTS; attempt++) {
      this.#staleAt = this.#deps.now() + this.#deps.settings.refreshMs;
      const raw = await kv.get(KEY_SET_KEY, this.#deps.now());
      let record: StoredKeyRecord;
      if (raw === null) record = { v: 1, keys: [] };
      else if (raw === this.#raw) record = this.#record;
      else {
        try {
          record = parseKeyRecord(raw);
        } catch (cause) {
          // Never overwritten: a record this version cannot read may be a newer version's.
          throw new StorageUnavailableError(
            new Error(`the stored signing keys: ${(cause as Error).message}`),
          );
        }
        // Before anything of it is used or written over: never re-MAC a record someone altered.
        await this.#checkAuthentic(record);
      }
      await this.#openAll(record);
      const now = this.#deps.now();
      const events: GatehouseEvent[] = [];
      const changed = change ? change(record, now, events) : record;
      const kept = await this.#upkeep(changed, now, events);
      // A record of an earlier version (no MAC), or one MACed under a previous KEK, is written
      // again at once: authenticated under the current KEK from then on.
      const current = this.#keks[0]!;
      const authenticated = raw === null || record.mac?.startsWith(`${current.id}.`) === true;
      if (kept === record && changed === record && authenticated) {
        this.#adopt(raw, record);
        return;
      }
      const written = await this.#authenticated(
        await this.#resealed(kept),
        Math.max(record.generation ?? 0, this.#generation) + 1,
      );
      const text = JSON.stringify(written);
      const expiresAt = now + KEY_SET_RECORD_TTL_MS;
      const won =
        raw === null
          ? await kv.add(KEY_SET_KEY, text, expiresAt, now)
          : await kv.swap(KEY_SET_KEY, raw, text, expiresAt, now);
      if (won) {
        this.#adopt(text, written);
        for (const event of events) this.#deps.emit(event);
        return;
      }
    }
    throw new StorageUnavailableError(
      new Error(`the stored signing keys changed ${MAX_ATTEMPTS} times while being written`),
    );
  }

  /**
   * Refuses a record read from storage that this process must not trust: a MAC that does not verify
   * under the configured KEKs (its keys, revocations or `signsFrom` altered, or a record of another
   * issuer), a generation lower than one this process adopted, or the same generation with other
   * content (an older record put back: a revoked key restored), or no MAC once this process has
   * seen one (the MAC stripped). A record without a MAC is accepted only by a process that has seen
   * none (records of earlier versions), and written again authenticated.
   */
  async #checkAuthentic(record: StoredKeyRecord): Promise<void> {
    let problem: 'tampered' | 'rolled_back' | undefined;
    const macKek = record.mac?.split('.')[0];
    if (macKek !== undefined && !this.#keks.some((kek) => kek.id === macKek))
      // As for a sealed key (start()): the record was written under a KEK not configured here.
      throw new ConfigurationError(
        `keyRotation.keyEncryptionKey: the stored signing keys were authenticated under the key-encryption key "${macKek}", which is not configured (list it in keyRotation.previousKeyEncryptionKeys).`,
        { code: 'ERR_CONFIG_UNREADABLE_STORED_KEY', option: 'keyRotation.keyEncryptionKey' },
      );
    if (record.mac === undefined) {
      if (this.#generation > 0) problem = 'rolled_back';
      else
        this.#deps.logger.warn(
          'gatehouse: the stored signing keys carry no MAC (written by an earlier version); they are authenticated at this write',
        );
    } else if (
      !(await isAuthenticRecord(
        this.#keks,
        record.mac,
        recordContent(this.#deps.issuer, record.generation!, record.keys),
      ))
    )
      problem = 'tampered';
    else if (record.generation! <= this.#generation) problem = 'rolled_back';
    if (problem === undefined) return;
    const message =
      problem === 'tampered'
        ? 'the stored signing keys are refused: their MAC does not verify under the configured key-encryption keys (the record was altered, or written under a key-encryption key not configured here)'
        : `the stored signing keys are refused: the record (generation ${record.generation ?? 'none'}) is older than generation ${this.#generation}, already seen here (an earlier record was put back)`;
    this.#deps.logger.error(`gatehouse: ${message}; the keys known so far stay in use`);
    this.#deps.emit({
      type: 'signing_keys.refused',
      reason: problem,
      ...(record.generation === undefined ? {} : { generation: String(record.generation) }),
    });
    throw new ConfigurationError(`keyRotation: ${message}.`, {
      code: 'ERR_CONFIG_UNTRUSTED_KEY_RECORD',
      option: 'keyRotation.keyEncryptionKey',
    });
  }

  /** `record` as written: with its generation and its MAC under the current KEK. */
  async #authenticated(record: StoredKeyRecord, generation: number): Promise<StoredKeyRecord> {
    const content = recordContent(this.#deps.issuer, generation, record.keys);
    return { v: 1, generation, mac: await authenticateRecord(this.#keks[0]!, content), keys: record.keys };
  }

  /**
   * The record after the upkeep of every rotated algorithm (planMaintenance); the same object when
   * nothing changes.
   */
  async #upkeep(record: StoredKeyRecord, now: EpochMs, events: GatehouseEvent[]): Promise<StoredKeyRecord> {
    const { settings } = this.#deps;
    let changed = false;
    const keys: StoredKey[] = record.keys.filter((key) => !settings.algorithms.includes(key.alg));
    for (const algorithm of settings.algorithms) {
      const before = keysOf(record, algorithm);
      const plan = planMaintenance(before, now, settings);
      if (
        plan.dropped.length > 0 ||
        plan.generateAt !== undefined ||
        plan.keep.some((k, i) => k !== before[i])
      )
        changed = true;
      for (const key of plan.dropped) events.push({ type: 'signing_key.dropped', kid: key.kid, algorithm });
      keys.push(...plan.keep);
      if (plan.generateAt !== undefined) {
        const generated = await this.#generate(algorithm, now, plan.generateAt);
        keys.push(generated);
        events.push({
          type: 'signing_key.published',
          kid: generated.kid,
          algorithm,
          signsFrom: new Date(generated.signsFrom).toISOString(),
        });
      }
    }
    if (!changed && record.keys.length === keys.length) return record;
    return { v: 1, keys };
  }

  /**
   * The record to write, with keys sealed under an earlier KEK sealed again under the current one:
   * a change of KEK completes at the next write.
   */
  async #resealed(record: StoredKeyRecord): Promise<StoredKeyRecord> {
    const current = this.#keks[0]!;
    const keys = await Promise.all(
      record.keys.map(async (key) => {
        const opened = this.#opened.get(key.kid);
        if (!opened || key.sealed.startsWith(`${current.id}.`)) return key;
        return { ...key, sealed: await seal(current, JSON.stringify(opened.privateJwk), this.#context(key)) };
      }),
    );
    return { v: 1, keys };
  }

  /** A new key of `algorithm`, sealed, opened in this process already. */
  async #generate(algorithm: SigningAlgorithm, now: EpochMs, signsFrom: EpochMs): Promise<StoredKey> {
    const privateJwk = await generateKeys(algorithm);
    const publicJwk = publicJwkOf(privateJwk, algorithm);
    const stored: StoredKey = {
      kid: privateJwk.kid,
      alg: algorithm,
      publishedAt: now,
      signsFrom,
      jwk: publicJwk,
      sealed: '',
    };
    const sealed = await seal(this.#keks[0]!, JSON.stringify(privateJwk), this.#context(stored));
    this.#opened.set(privateJwk.kid, await this.#openedOf(privateJwk, algorithm));
    return { ...stored, sealed };
  }

  /** Opens the keys of `record` not opened yet; a key that cannot be opened is logged and left out. */
  async #openAll(record: StoredKeyRecord): Promise<void> {
    for (const key of record.keys) {
      if (this.#opened.has(key.kid) || this.#unreadable.has(key.kid)) continue;
      try {
        const privateJwk = JSON.parse(await open(this.#keks, key.sealed, this.#context(key))) as PrivateJwk;
        if (privateJwk.kid !== key.kid) throw new Error('the sealed key has another kid');
        this.#opened.set(key.kid, await this.#openedOf(privateJwk, key.alg));
      } catch (error) {
        this.#unreadable.add(key.kid);
        this.#deps.logger.error(
          `gatehouse: the stored ${key.alg} signing key "${key.kid}" cannot be decrypted (another key-encryption key, or altered); it neither signs nor verifies here`,
          error,
        );
      }
    }
  }

  /**
   * The signer and public key of an opened private key. The published key is derived from the
   * sealed private one, never taken from the record's clear `jwk`: whoever can write the storage
   * but has no KEK cannot slip in a key of their own.
   */
  async #openedOf(privateJwk: PrivateJwk, algorithm: SigningAlgorithm): Promise<OpenedKey> {
    const publicJwk = publicJwkOf(privateJwk, algorithm);
    return {
      privateJwk,
      publicJwk,
      publicKey: (await importJWK(publicJwk, algorithm)) as CryptoKey,
      signer: await signingKeyOf(privateJwk, algorithm),
    };
  }

  /** The additional authenticated data of a stored key: its issuer, algorithm and `kid`. */
  #context(key: Pick<StoredKey, 'alg' | 'kid'>): string {
    return `gatehouse signing key\n${this.#deps.issuer}\n${key.alg}\n${key.kid}`;
  }

  /** Takes a record read or written as the current one; forgets tokens of keys that left it. */
  #adopt(raw: string | null, record: StoredKeyRecord): void {
    this.#raw = raw;
    this.#record = record;
    this.#generation = Math.max(this.#generation, record.generation ?? 0);
    const kids = new Set(record.keys.map((key) => key.kid));
    const gone = new Set([...this.#opened.keys()].filter((kid) => !kids.has(kid)));
    for (const kid of gone) this.#opened.delete(kid);
    for (const kid of this.#unreadable) if (!kids.has(kid)) this.#unreadable.delete(kid);
    if (gone.size > 0) {
      this.#deps.verifiedTokens.forget((token) => {
        try {
          const { kid } = decodeProtectedHeader(token);
          return kid !== undefined && gone.has(kid);
        } catch {
          return true;
        }
      });
    }
    this.#rebuild(this.#deps.now());
  }

  /**
   * The key set at `now` from the record in memory: per rotated algorithm, the signing key signs;
   * every opened key verifies and is published (signing key first), then the `keys` and `signers`.
   */
  #rebuild(now: EpochMs): void {
    const signers = new Map<SigningAlgorithm, SigningKey>();
    const verificationKeys = new Map<string, CryptoKey>();
    const keyAlgorithms = new Map<string, SigningAlgorithm>();
    const publicKeys: JWK[] = [];
    let switchAt = Number.POSITIVE_INFINITY;
    for (const algorithm of this.#deps.settings.algorithms) {
      const ordered = keysOf(this.#record, algorithm).filter((key) => this.#opened.has(key.kid));
      const current = signingKeyAt(ordered, now);
      const published = current ? [current, ...ordered.filter((key) => key !== current)] : ordered;
      for (const key of published) {
        const opened = this.#opened.get(key.kid)!;
        if (key === current) signers.set(algorithm, opened.signer);
        verificationKeys.set(key.kid, opened.publicKey);
        keyAlgorithms.set(key.kid, algorithm);
        publicKeys.push(opened.publicJwk);
        if (key.signsFrom > now) switchAt = Math.min(switchAt, key.signsFrom);
      }
    }
    this.#switchAt = switchAt;
    // Only when every stored key of the access tokens' algorithm is unreadable here (start() refuses
    // to start so; later the set known so far stays).
    if (this.#deps.settings.algorithms.includes(this.#deps.algorithm) && !signers.has(this.#deps.algorithm))
      return;
    const stored: KeyMaterial = { signers, verificationKeys, keyAlgorithms, publicKeys };
    this.#snapshot = keySetOf(this.#deps.algorithm, [stored, this.#deps.fixed], {
      jwksMaxAge: this.#jwksMaxAge,
      refreshFor: this.#refreshFor,
      fresh: this.#fresh,
    });
  }
}
