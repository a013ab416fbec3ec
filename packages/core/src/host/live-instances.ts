import type { Gatehouse } from '../gatehouse.js';

/** A live instance, and whether it was asked for since it last reached the young end. */
interface Slot {
  readonly instance: Gatehouse;
  used: boolean;
}

/**
 * The instances a host has created, by name, at most `maxEntries` of them: least recently used
 * first out, approximated the CLOCK way (second chance). A hit only sets a flag; the map is
 * reordered only when an instance is added to a full set, where the oldest entries that were used
 * meanwhile move to the young end and the first unused one goes. Moving an entry on every hit
 * (delete and re-insert) made the bearer check of a known token through a host with 10,000 live
 * instances 4 times slower than through the instance itself (bench/RESULTS.md, run "many
 * instances"): V8 rehashes the map's whole table whenever re-insertions have used up its free
 * slots. An evicted instance holds nothing that needs closing (its records live in the shared
 * engine, its verified tokens in the host's shared table), so evicting is forgetting; the next
 * request for it resolves it again.
 *
 * Creation is single-flight per name: concurrent first requests for one instance wait for one
 * resolution. Only successes are kept; an unknown name (the resolver said `null`) or a failure is
 * asked again next time, so an instance created while the process runs is found at once.
 */
export class LiveInstances {
  readonly #live = new Map<string, Slot>();
  readonly #pending = new Map<string, Promise<Gatehouse | null>>();
  readonly #maxEntries: number;
  readonly #create: (name: string) => Promise<Gatehouse | null>;

  constructor(maxEntries: number, create: (name: string) => Promise<Gatehouse | null>) {
    this.#maxEntries = maxEntries;
    this.#create = create;
  }

  /** The live instance `name`, made most recently used, or `undefined` (not created yet or evicted). */
  get(name: string): Gatehouse | undefined {
    const slot = this.#live.get(name);
    if (slot === undefined) return undefined;
    slot.used = true;
    return slot.instance;
  }

  /** {@link get}, or the instance created now (`null`: no such instance). */
  obtain(name: string): Gatehouse | Promise<Gatehouse | null> {
    const live = this.get(name);
    if (live !== undefined) return live;
    let pending = this.#pending.get(name);
    if (pending === undefined) {
      const creating = this.#create(name);
      pending = creating;
      this.#pending.set(name, creating);
      const settle = () => {
        // Invalidated meanwhile: whoever waited gets this instance, but it is not kept.
        if (this.#pending.get(name) !== creating) return false;
        this.#pending.delete(name);
        return true;
      };
      creating.then((instance) => {
        if (settle() && instance) this.#keep(name, instance);
      }, settle);
    }
    return pending;
  }

  /** Forgets `name` (live or being created): the next request resolves its options again. */
  invalidate(name: string): boolean {
    const pending = this.#pending.delete(name);
    return this.#live.delete(name) || pending;
  }

  /** Number of live instances. */
  get size(): number {
    return this.#live.size;
  }

  #keep(name: string, instance: Gatehouse): void {
    // Map iterates in insertion order: the first entry is the oldest. Ends after at most one pass:
    // every entry moved loses its flag.
    while (this.#live.size >= this.#maxEntries) {
      const oldest = this.#live.entries().next();
      if (oldest.done) break;
      const [oldestName, slot] = oldest.value;
      this.#live.delete(oldestName);
      if (!slot.used) break;
      slot.used = false;
      this.#live.set(oldestName, slot);
    }
    this.#live.set(name, { instance, used: false });
  }
}
