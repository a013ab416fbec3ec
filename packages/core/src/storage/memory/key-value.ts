import { markTrusted } from '../guard.js';
import { StoreFullError } from '../store-full.js';
import type { KeyValueStore, KeyValueWriteOptions } from '../types.js';
import type { Clearable } from './clearable.js';
import { flat } from './compact-records.js';
import { ExpiringStore } from './expiring-map.js';
import { PartitionLedger } from './partition-ledger.js';

/** Options of {@link memoryKeyValueStore}. */
export interface MemoryKeyValueStoreOptions {
  /**
   * Most unexpired keys held at once per namespace (the part of a key before its first `:`:
   * `session`, `once`, `interaction`, …; for counters, before the second: `rate:pw`,
   * `rate:share-interaction`, …); other namespaces are not affected, so a flood of one kind of
   * record never locks out another (sessions). When a namespace holds that many, a new
   * key evicts the oldest entry of the partition holding the most
   * ({@link KeyValueWriteOptions.partition}: who pays for it), which adds no keys until that entry
   * would have expired; a writer whose partition holds as many as any, or a namespace without
   * partitioned entries, gets {@link StoreFullError} (the caller answers 503, or refuses the
   * attempt for rate limits and replay ids). Default 100,000.
   */
  readonly maxEntries?: number;
}

/** A key-value entry, its own item of the namespace's store (one object per entry). */
class Entry {
  readonly key: string;
  readonly value: string;
  constructor(
    key: string,
    value: string,
    readonly expiresAt: number,
    /** Who pays for it ({@link KeyValueWriteOptions.partition}); absent: never evicted. */
    readonly partition: string | undefined,
  ) {
    // Keys and values are often concatenated (`session:` + a hash): kept flat (see `flat`).
    this.key = flat(key);
    this.value = flat(value);
  }
}

/** The counters' namespaces (`storage/kv/keys.ts`), split by the kind of limit that follows them. */
const COUNTERS = new Set(['rate', 'rate-end']);

/**
 * The namespace of `key`: its text before the first `:`; for counters (`rate:`, `rate-end:`), before
 * the second, so that each kind of limit (`rate:pw`, `rate:share-interaction`, …) is bounded on
 * its own: a flood that fills one kind's windows leaves a person room for the few of another kind
 * their flow needs.
 */
function namespaceName(key: string): string {
  const first = key.indexOf(':');
  if (first === -1) return '';
  const name = key.slice(0, first);
  if (!COUNTERS.has(name)) return name;
  const second = key.indexOf(':', first + 1);
  return second === -1 ? name : key.slice(0, second);
}

/** One namespace: its entries and who holds them. */
class Namespace {
  readonly ledger: PartitionLedger;
  readonly entries: ExpiringStore<Entry>;
  constructor(maxEntries: number) {
    this.ledger = new PartitionLedger(maxEntries);
    this.entries = new ExpiringStore<Entry>((entry) => {
      if (entry.partition !== undefined) this.ledger.remove(entry.partition, entry.key);
    });
  }

  /** Deletes a live entry (read at hand) and its place in the ledger. */
  remove(key: string, entry: Entry): void {
    this.entries.delete(key);
    if (entry.partition !== undefined) this.ledger.remove(entry.partition, key);
  }
}

/**
 * In-memory {@link KeyValueStore}, for one process. Each method runs in one synchronous block, so
 * concurrent callers cannot interleave inside `add`, `take`, `swap` or `increment`.
 *
 * Each namespace holds at most `maxEntries` keys. A new key of a full namespace makes room by
 * evicting the oldest entry of the partition holding the most (`PartitionLedger`), unless the
 * writer's own partition holds as many (it is over its fair share: `StoreFullError`), and that
 * partition then adds no keys until the evicted entry would have expired. A namespace whose
 * entries have no partition refuses as before.
 */
export function memoryKeyValueStore(options: MemoryKeyValueStoreOptions = {}): KeyValueStore & Clearable {
  const maxEntries = options.maxEntries ?? 100_000;
  if (!Number.isInteger(maxEntries) || maxEntries < 1)
    throw new RangeError('memoryKeyValueStore: maxEntries must be a positive whole number.');
  const namespaces = new Map<string, Namespace>();
  /** The latest `now` a caller passed (the instance clock): what a full namespace is swept by. */
  let latest = Number.NEGATIVE_INFINITY;
  const seen = (now: number) => {
    if (now > latest) latest = now;
    return now;
  };
  const namespaceOf = (key: string) => {
    const name = namespaceName(key);
    let namespace = namespaces.get(name);
    if (!namespace) {
      namespace = new Namespace(maxEntries);
      namespaces.set(name, namespace);
    }
    return namespace;
  };
  const full = () => new StoreFullError('in-memory key-value');
  /** Room for one more key in a full namespace, taken from the heaviest partition; else throws. */
  const makeRoom = (namespace: Namespace, writer: string | undefined, now: number) => {
    const { entries, ledger } = namespace;
    entries.sweepAll(now);
    if (entries.size < maxEntries) return;
    const heaviest = ledger.heaviest();
    if (heaviest === undefined) throw full();
    // The writer holding as much as anyone is over its fair share: it is the one refused.
    if (writer !== undefined && ledger.count(writer) >= ledger.count(heaviest))
      throw new StoreFullError('in-memory key-value', 'this caller holds its share of it', {
        shareSpent: true,
      });
    const victim = ledger.oldest(heaviest)!;
    const entry = entries.get(victim, now)!;
    if (!ledger.close(heaviest, entry.expiresAt, now)) throw full();
    namespace.remove(victim, entry);
  };
  /** Stores `entry`; `now` is the caller's, or absent (`set`): then nothing else is swept. */
  const put = (entry: Entry, now: number | undefined) => {
    const { key } = entry;
    const namespace = namespaceOf(key);
    const { entries, ledger } = namespace;
    const at = now ?? latest;
    const current = entries.get(key, at);
    if (current === undefined) {
      if (entry.partition !== undefined && ledger.isClosed(entry.partition, at))
        throw new StoreFullError('in-memory key-value', 'this caller gave up its share of it for now', {
          shareSpent: true,
        });
      if (entries.size >= maxEntries) makeRoom(namespace, entry.partition, at);
    } else if (current.partition !== undefined && current.partition !== entry.partition) {
      ledger.remove(current.partition, key);
    }
    if (now === undefined) entries.replace(entry);
    else entries.put(entry, now);
    if (entry.partition !== undefined) ledger.add(entry.partition, key);
  };
  return markTrusted({
    clear() {
      namespaces.clear();
    },
    async get(key, now) {
      seen(now);
      return namespaceOf(key).entries.get(key, now)?.value ?? null;
    },
    async set(key, value, expiresAt, options) {
      // `set` is given no `now`: the entry is judged expired by the `now` of whoever reads it, and
      // the others are swept by the calls that give one (the instance clock, never Date.now()).
      put(new Entry(key, value, expiresAt, options?.partition), undefined);
    },
    async add(key, value, expiresAt, now, options) {
      seen(now);
      if (namespaceOf(key).entries.get(key, now) !== undefined) return false;
      if (expiresAt <= now) return true;
      put(new Entry(key, value, expiresAt, options?.partition), now);
      return true;
    },
    async take(key, now) {
      seen(now);
      const namespace = namespaceOf(key);
      const entry = namespace.entries.get(key, now);
      if (entry === undefined) return null;
      namespace.remove(key, entry);
      return entry.value;
    },
    async swap(key, expected, value, expiresAt, now, options) {
      seen(now);
      const namespace = namespaceOf(key);
      const entry = namespace.entries.get(key, now);
      if (entry === undefined || entry.value !== expected) return false;
      if (expiresAt <= now) namespace.remove(key, entry);
      else put(new Entry(key, value, expiresAt, options?.partition), now);
      return true;
    },
    async increment(key, by, expiresAt, now, options) {
      seen(now);
      const current = namespaceOf(key).entries.get(key, now);
      const count = (current === undefined ? 0 : Number(current.value)) + by;
      const until = current?.expiresAt ?? expiresAt;
      // A counter that would already have ended is counted but not kept.
      if (until > now) put(new Entry(key, String(count), until, options?.partition), now);
      return count;
    },
    async delete(key) {
      const namespace = namespaceOf(key);
      const entry = namespace.entries.get(key, latest);
      if (entry !== undefined) namespace.remove(key, entry);
      else namespace.entries.delete(key);
    },
  });
}
