import { headerName, trimHttpWhitespace } from '../http/header-field.js';
import { ListedHeaders } from '../http/listed-headers.js';

/**
 * The header fields of the Node bridge's light request (`BufferedRequest`), over Node's raw header
 * list (`req.rawHeaders`: name, value, name, value, …): never handed to host code (see
 * `ListedHeaders`).
 *
 * Why: copying a request's fields into undici's `Headers` validates and lower-cases each one
 * (~3.5 µs for five fields here), while a bearer check reads one or two of them. `get` and `has`
 * scan the raw list with Fetch's rules (case-insensitive names, repeated fields joined with ", ",
 * `Cookie` with "; "); any other member, including iteration and any change, is answered by a real
 * `Headers` made from the list on first use.
 */
export class RawHeaders extends ListedHeaders {
  /** The fields as received; `undefined` once {@link #real} holds them. */
  #raw: readonly string[] | undefined;
  #real: Headers | undefined;

  /** @param raw Node's `rawHeaders`; HTTP/2 pseudo-headers (`:path`, …) are left out. */
  constructor(raw: readonly string[]) {
    super();
    this.#raw = raw;
  }

  get(name: string): string | null {
    const raw = this.#raw;
    if (raw === undefined) return this.real().get(name);
    const wanted = headerName(name);
    let value: string | null = null;
    for (let i = 0; i + 1 < raw.length; i += 2) {
      const field = raw[i]!;
      if (field.length === wanted.length && field.toLowerCase() === wanted) {
        const found = trimHttpWhitespace(raw[i + 1]!);
        // Fetch joins repeated fields with ", ", but `Cookie` with "; " (as undici does).
        value = value === null ? found : `${value}${wanted === 'cookie' ? '; ' : ', '}${found}`;
      }
    }
    return value;
  }

  has(name: string): boolean {
    const raw = this.#raw;
    if (raw === undefined) return this.real().has(name);
    const wanted = headerName(name);
    for (let i = 0; i < raw.length; i += 2) {
      const field = raw[i]!;
      if (field.length === wanted.length && field.toLowerCase() === wanted) return true;
    }
    return false;
  }

  /**
   * The fields as `[name, value]` pairs, as received (pseudo-headers left out): what the real
   * `Request` of `hostRequest` is built from, without a `Headers` in between.
   */
  pairs(): [string, string][] {
    const raw = this.#raw;
    if (raw === undefined) return [...this.real()];
    const pairs: [string, string][] = [];
    for (let i = 0; i + 1 < raw.length; i += 2) {
      const name = raw[i]!;
      // HTTP/2 pseudo-headers (`:path`, …) are not header fields of the message.
      if (name.charCodeAt(0) !== 58 /* ':' */) pairs.push([name, raw[i + 1]!]);
    }
    return pairs;
  }

  protected real(): Headers {
    if (this.#real === undefined) {
      this.#real = new Headers(this.pairs());
      this.#raw = undefined;
    }
    return this.#real;
  }
}
