/**
 * A `Headers` that keeps its fields in a list of its own while only lookups (and, for some
 * subclasses, simple changes) are asked of it, and copies them into the real `Headers` it is
 * (`fill`) before anything else: iterating, `getSetCookie`, whatever its subclass does not answer.
 * From then on it is plain `Headers`.
 *
 * Why: undici's `Headers` converts, validates and lower-cases every name and value through WebIDL
 * and regular expressions, and sorts the fields to iterate them, while Gatehouse mostly reads one
 * or two fields of a request and sets a few of a reply (see `RawHeaders`, `ReplyHeaders`).
 */
export abstract class LazyHeaders extends Headers {
  /** Copies the listed fields into the real `Headers`, once; later calls do nothing. */
  protected abstract fill(): void;

  /**
   * `headers`, ready to be handed to a native `Headers`, `Request` or `Response` constructor. Bun
   * copies a `Headers` argument from its internal list without calling the overridden iterators
   * (undici iterates it, so Node fills it either way): a `LazyHeaders` not filled yet would arrive
   * empty (a request through the Express adapter on Bun would lose its `Authorization` header).
   */
  static copyable(headers: Headers): Headers {
    if (headers instanceof LazyHeaders) headers.fill();
    return headers;
  }

  override getSetCookie(): string[] {
    this.fill();
    return super.getSetCookie();
  }

  override forEach(callback: (value: string, key: string, parent: Headers) => void, thisArg?: unknown): void {
    this.fill();
    super.forEach(callback, thisArg);
  }

  override entries(): HeadersIterator<[string, string]> {
    this.fill();
    return super.entries();
  }

  override keys(): HeadersIterator<string> {
    this.fill();
    return super.keys();
  }

  override values(): HeadersIterator<string> {
    this.fill();
    return super.values();
  }

  override [Symbol.iterator](): HeadersIterator<[string, string]> {
    return this.entries();
  }
}
