import { fieldName, headerName, isHeaderValue, trimHttpWhitespace } from './header-field.js';
import { ListedHeaders } from './listed-headers.js';

/** The key of {@link replyFields} (`Symbol.for`: the Node bridge may come from another copy of this module). */
const FIELDS: unique symbol = Symbol.for('gatehouse.replyHeaders.fields') as never;

/**
 * The header fields of a `Reply` while Gatehouse builds it: fields kept in a plain list, names
 * lower-cased and sorted as Fetch iterates them, while only `set`, `get`, `has` and `delete` are
 * asked of it (and `append` of a name not there yet), which is all Gatehouse itself does (`Cache-Control`, `Pragma`, `Content-Type`,
 * `Vary`, the CORS fields). Any other member (appending, iterating, `getSetCookie`) is answered by
 * a real `Headers` made from the list, which holds the fields from then on. Not a `Headers` (see
 * `ListedHeaders`): host code reading `Reply.headers` gets a real one.
 *
 * Why: undici's `Headers` converts, validates and lower-cases every name and value through WebIDL
 * and regular expressions, and sorts the fields to iterate them; a token response set four fields
 * and the Node bridge read them back, about a thirtieth of a refresh's instructions on the event
 * loop. The Node bridge reads the list directly ({@link replyFields}). Names and values are checked
 * by Fetch's rules (header-field.ts); a name or value they refuse, and `Set-Cookie`, go to the real
 * `Headers`, which throws or keeps them as it always does.
 */
export class ReplyHeaders extends ListedHeaders {
  /** Name, value, name, value, … sorted by name; `undefined` once copied into the real `Headers`. */
  #fields: string[] | undefined;
  #real: Headers | undefined;

  /**
   * @param listed Fields to start with, as the list keeps them (lower-case names, sorted, each
   *   once, values normalised and valid, no `Set-Cookie`): Gatehouse's own constant sets. Copied.
   */
  constructor(listed: readonly string[] = NO_FIELDS) {
    super();
    this.#fields = listed.slice();
  }

  override get(name: string): string | null {
    const fields = this.#fields;
    if (fields === undefined) return this.real().get(name);
    const index = indexOf(fields, headerName(name));
    return index < 0 ? null : fields[index + 1]!;
  }

  override has(name: string): boolean {
    const fields = this.#fields;
    if (fields === undefined) return this.real().has(name);
    return indexOf(fields, headerName(name)) >= 0;
  }

  override set(name: string, value: string): void {
    const fields = this.#fields;
    const lower = fields === undefined ? undefined : fieldName(name);
    const listed = lower === undefined ? undefined : listedValue(lower, value);
    if (fields === undefined || lower === undefined || listed === undefined) {
      this.real().set(name, value);
      return;
    }
    const index = indexOf(fields, lower);
    if (index >= 0) fields[index + 1] = listed;
    else insert(fields, lower, listed);
  }

  override delete(name: string): void {
    const fields = this.#fields;
    const lower = fields === undefined ? undefined : fieldName(name);
    if (fields === undefined || lower === undefined) {
      this.real().delete(name);
      return;
    }
    const index = indexOf(fields, lower);
    if (index >= 0) fields.splice(index, 2);
  }

  override append(name: string, value: string): void {
    const fields = this.#fields;
    const lower = fields === undefined ? undefined : fieldName(name);
    const listed = lower === undefined ? undefined : listedValue(lower, value);
    // A second value of a name is combined by the real `Headers` (Fetch joins them with ", ").
    if (fields === undefined || lower === undefined || listed === undefined || indexOf(fields, lower) >= 0) {
      this.real().append(name, value);
      return;
    }
    insert(fields, lower, listed);
  }

  /** The fields while they are a plain list (see {@link replyFields}). */
  [FIELDS](): readonly string[] | undefined {
    return this.#fields;
  }

  protected real(): Headers {
    if (this.#real === undefined) {
      this.#real = new Headers(fieldPairs(this.#fields ?? NO_FIELDS));
      this.#fields = undefined;
    }
    return this.#real;
  }
}

/**
 * Header fields for a reply: a {@link ReplyHeaders} for none or a record of them (what Gatehouse's
 * own answers pass), else (pairs, a `Headers`) undici's `Headers`.
 */
export function replyHeaders(init?: HeadersInit): Headers {
  if (init !== undefined && typeof (init as Partial<Iterable<unknown>>)[Symbol.iterator] === 'function')
    return new Headers(init);
  const headers = new ReplyHeaders();
  const record = init as Readonly<Record<string, string>> | undefined;
  if (record !== undefined) for (const name of Object.keys(record)) headers.append(name, record[name]!);
  return headers;
}

/** The value as listed (normalised), or `undefined` when the real `Headers` must take it. */
function listedValue(lower: string, value: string): string | undefined {
  if (typeof value !== 'string' || lower === 'set-cookie') return undefined;
  const normalised = trimHttpWhitespace(value);
  return isHeaderValue(normalised) ? normalised : undefined;
}

/** Puts a new field in its place (Fetch iterates fields sorted by name), moving later ones up. */
function insert(fields: string[], lower: string, value: string): void {
  let at = fields.length;
  fields.push(lower, value);
  while (at > 0 && fields[at - 2]! > lower) {
    fields[at] = fields[at - 2]!;
    fields[at + 1] = fields[at - 1]!;
    at -= 2;
  }
  fields[at] = lower;
  fields[at + 1] = value;
}

const NO_FIELDS: readonly string[] = [];

function indexOf(fields: readonly string[], lower: string): number {
  for (let i = 0; i < fields.length; i += 2) if (fields[i] === lower) return i;
  return -1;
}

/** A list of fields (name, value, …) as `[name, value]` pairs, a `HeadersInit`. */
export function fieldPairs(fields: readonly string[]): [string, string][] {
  const pairs: [string, string][] = [];
  for (let i = 0; i < fields.length; i += 2) pairs.push([fields[i]!, fields[i + 1]!]);
  return pairs;
}

/**
 * The fields of a {@link ReplyHeaders} still kept as a list (name, value, …: lower-case names in
 * Fetch's order, no `Set-Cookie`), else `undefined` (any other `Headers`): what a server writes
 * without iterating a `Headers`. The list is the object's own: do not change it.
 */
export function replyFields(headers: Headers): readonly string[] | undefined {
  return (headers as { [FIELDS]?: () => readonly string[] | undefined })[FIELDS]?.();
}
