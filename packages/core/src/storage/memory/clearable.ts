/**
 * What the memory stores add to their contract: a synchronous `clear()`, so that
 * `memoryStorage().clear()` empties one instance (the views of a memory engine share nothing).
 */
export interface Clearable {
  /** Forgets every record of the store. */
  clear(): void;
}
