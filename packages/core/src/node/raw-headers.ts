import { headerName, trimHttpWhitespace } from '../http/header-field.js';
import { LazyHeaders } from '../http/lazy-headers.js';

/**
 * `Headers` over Node's raw header list (`req.rawHeaders`: name, value, name, value, …), filled
 * only when something more than a lookup is asked of it.
 *
 * Why: copying a request's fields into undici's `Headers` validates and lower-cases each one
 * (~3.5 µs for five fields here), while a bearer check reads one or two of them. `get` and `has`
 * scan the raw list with Fetch's rules (case-insensitive names, repeated fields joined with ", ",
 * `Cookie` with "; ");
 * every other member, including iteration and any change, first copies the fields into the real
 * `Headers` this object is, and from then on is plain `Headers`.
 */
export class RawHeaders extends LazyHeaders {
  /** The fields not copied yet; `undefined` once copied. */
  #raw: readonly string[] | undefined;

  /** @param raw Node's `rawHeaders`; HTTP/2 pseudo-headers (`:path`, …) are left out. */
  constructor(raw: readonly string[]) {
    super();
    this.#raw = raw;
  }

  override get(name: string): string | null {
    const raw = this.#raw;
    if (raw === undefined) return super.get(name);
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

  override has(name: string): boolean {
    const raw = this.#raw;
    if (raw === undefined) return super.has(name);
    const wanted = headerName(name);
    for (let i = 0; i < raw.length; i += 2) {
      const field = raw[i]!;
      if (field.length === wanted.length && field.toLowerCase() === wanted) return true;
    }
    return false;
  }

  override append(name: string, value: string): void {
    this.fill();
    super.append(name, value);
  }

  override set(name: string, value: string): void {
    this.fill();
    super.set(name, value);
  }

  override delete(name: string): void {
    this.fill();
    super.delete(name);
  }

  /** Copies the raw fields into the real `Headers`, once. */
  protected fill(): void {
    const raw = this.#raw;
    if (raw === undefined) return;
    this.#raw = undefined;
    for (let i = 0; i + 1 < raw.length; i += 2) {
      const name = raw[i]!;
      // HTTP/2 pseudo-headers (`:path`, …) are not header fields of the message.
      if (name.charCodeAt(0) !== 58 /* ':' */) super.append(name, raw[i + 1]!);
    }
  }
}
