/**
 * The base of Gatehouse's own header views (`RawHeaders` of a Node request, `ReplyHeaders` of its
 * own answers): fields kept in a plain list while only lookups (and, for replies, simple changes)
 * are asked, and a real `Headers` made from them on first need of anything else (iteration,
 * `getSetCookie`, what the subclass does not answer), which holds the fields from then on.
 *
 * Why: undici's `Headers` converts, validates and lower-cases every name and value through WebIDL
 * and regular expressions, and sorts the fields to iterate them, while Gatehouse mostly reads one
 * or two fields of a request and sets a few of a reply.
 *
 * Not a subclass of `Headers`, and never handed to host code (hosts get the real `Request` of
 * `hostRequest` and the real `Headers` of `Reply.headers`): a `Headers` subclass with a store of its
 * own had to be filled before each hand-off to a native constructor (Bun copies a `Headers` argument
 * from its internal list, which such a subclass has empty). This object has `Headers`' members, so
 * Gatehouse reads it like one, and it is an iterable of pairs, which every runtime copies alike.
 */
export abstract class ListedHeaders implements Headers {
  abstract get(name: string): string | null;
  abstract has(name: string): boolean;

  /** The real `Headers`, made from the list on first call; it holds the fields from then on. */
  protected abstract real(): Headers;

  /** The real `Headers` holding the fields (made now if need be): what host code is given. */
  toHeaders(): Headers {
    return this.real();
  }

  append(name: string, value: string): void {
    this.real().append(name, value);
  }

  set(name: string, value: string): void {
    this.real().set(name, value);
  }

  delete(name: string): void {
    this.real().delete(name);
  }

  getSetCookie(): string[] {
    return this.real().getSetCookie();
  }

  forEach(callback: (value: string, key: string, parent: Headers) => void, thisArg?: unknown): void {
    this.real().forEach((value, key) => {
      callback.call(thisArg, value, key, this);
    });
  }

  entries(): HeadersIterator<[string, string]> {
    return this.real().entries();
  }

  keys(): HeadersIterator<string> {
    return this.real().keys();
  }

  values(): HeadersIterator<string> {
    return this.real().values();
  }

  [Symbol.iterator](): HeadersIterator<[string, string]> {
    return this.entries();
  }

  get [Symbol.toStringTag](): string {
    return 'Headers';
  }
}
