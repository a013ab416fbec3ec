import type { Awaitable } from '../awaitable.js';
import { invalidRequest, oauthError } from '../errors.js';
import { bodyText } from './body.js';
import { unstorableText } from './storable-text.js';

/**
 * Parameters whose values may hold any character: a password is only ever handed to the hasher,
 * never stored or compared as text by an engine.
 */
const FREE_TEXT: ReadonlySet<string> = new Set(['password']);

/**
 * Parameters of an `application/x-www-form-urlencoded` body or a query string, with the rule of
 * RFC 6749 §3.1 / §3.2: a parameter must not be included more than once. A value holding a control
 * character (NUL included) or an unpaired surrogate is `invalid_request` when read
 * (`storable-text.ts`): identifiers and the values Gatehouse stores (`client_id`, `nonce`, `state`,
 * …) never reach an engine with one, whatever the engine.
 */
export class Params {
  /** Names and values as sent, alternating, in order. */
  readonly #pairs: readonly string[];
  /**
   * Of a long list only: each name's first index in {@link #pairs}, or {@link REPEATED}. A short
   * one (a token request has two to five parameters) is scanned instead of building a map.
   */
  #index: Map<string, number> | undefined;

  /** @param source The parameters, or their names and values alternating (name, value, …). */
  constructor(source: URLSearchParams | readonly string[]) {
    if (Array.isArray(source)) {
      this.#pairs = source;
      return;
    }
    const pairs: string[] = [];
    for (const [name, value] of source as URLSearchParams) pairs.push(name, value);
    this.#pairs = pairs;
  }

  /**
   * The parameters of a form body's text (WHATWG URL §5.1, as `URLSearchParams` parses it). The
   * text must be well-formed UTF-16, as a decoded body is.
   */
  static fromForm(text: string): Params {
    return new Params(formPairs(text));
  }

  /**
   * The value of `name`; `undefined` when absent or empty (RFC 6749 §3.1: parameters sent without a
   * value are treated as omitted). Throws `invalid_request` when it was sent more than once.
   */
  get(name: string): string | undefined {
    const at = this.#first(name);
    if (at === REPEATED) throw invalidRequest(`The "${name}" parameter is repeated.`);
    const value = at < 0 ? undefined : this.#pairs[at + 1];
    if (value === '' || value === undefined) return undefined;
    return checked(name, value);
  }

  /**
   * Every non-empty value of a parameter that may be repeated (RFC 8707 §2 `resource`), in the
   * order sent; empty when absent.
   */
  getAll(name: string): string[] {
    const pairs = this.#pairs;
    const values: string[] = [];
    for (let i = 0; i < pairs.length; i += 2) {
      if (pairs[i] === name && pairs[i + 1] !== '') values.push(checked(name, pairs[i + 1]!));
    }
    return values;
  }

  /**
   * The value of `name` exactly as sent, unchecked (no {@link unstorableText} refusal);
   * `undefined` when absent, empty or repeated. Only for echoing a value back to where it came from
   * (an authorization error redirect's `state`, RFC 6749 §4.1.2.1); what is stored or compared is
   * read with {@link get}.
   */
  asSent(name: string): string | undefined {
    const at = this.#first(name);
    if (at < 0) return undefined;
    const value = this.#pairs[at + 1];
    return value === '' ? undefined : value;
  }

  /** Like {@link get}, but throws `invalid_request` when the parameter is missing. */
  require(name: string): string {
    const value = this.get(name);
    if (value === undefined) throw invalidRequest(`The "${name}" parameter is missing.`);
    return value;
  }

  /**
   * These parameters with `name` set to `value` (replacing every value of it: the first one's
   * place is kept, as `URLSearchParams.set` does).
   */
  with(name: string, value: string): Params {
    const pairs: string[] = [];
    let set = false;
    for (let i = 0; i < this.#pairs.length; i += 2) {
      if (this.#pairs[i] !== name) pairs.push(this.#pairs[i]!, this.#pairs[i + 1]!);
      else if (!set) {
        pairs.push(name, value);
        set = true;
      }
    }
    if (!set) pairs.push(name, value);
    return new Params(pairs);
  }

  /** Whether `name` was sent (with or without a value). */
  has(name: string): boolean {
    return this.#first(name) !== ABSENT;
  }

  /** The index of `name`'s pair, {@link ABSENT}, or {@link REPEATED} when it was sent more than once. */
  #first(name: string): number {
    const pairs = this.#pairs;
    if (pairs.length > SCANNED_PAIRS * 2) {
      this.#index ??= indexOf(pairs);
      return this.#index.get(name) ?? ABSENT;
    }
    let at = ABSENT;
    for (let i = 0; i < pairs.length; i += 2) {
      if (pairs[i] !== name) continue;
      if (at !== ABSENT) return REPEATED;
      at = i;
    }
    return at;
  }
}

const ABSENT = -1;
const REPEATED = -2;
/** Lists longer than this many pairs get a map (the scan would be paid on every `get`). */
const SCANNED_PAIRS = 16;

function indexOf(pairs: readonly string[]): Map<string, number> {
  const index = new Map<string, number>();
  for (let i = 0; i < pairs.length; i += 2) {
    const name = pairs[i]!;
    index.set(name, index.has(name) ? REPEATED : i);
  }
  return index;
}

/**
 * The names and values (alternating) of an `application/x-www-form-urlencoded` text, exactly as
 * `URLSearchParams` parses it (WHATWG URL §5.1: split on `&`, then on the first `=`, `+` is a
 * space, percent-decoded as UTF-8), for well-formed text. A name or value without `%` or `+` is
 * the text itself; one that `decodeURIComponent` refuses (a stray `%`, bytes that are no UTF-8,
 * which the WHATWG parser keeps or replaces with U+FFFD) sends the whole text through
 * `URLSearchParams`.
 *
 * Why not `URLSearchParams`: Node's parser and its iteration cost a token request about as much
 * as the rest of reading its form.
 */
export function formPairs(text: string): string[] {
  const pairs: string[] = [];
  // `URLSearchParams` drops a leading "?" of its text.
  let start = text.charCodeAt(0) === 63 /* ? */ ? 1 : 0;
  // The next "=" at or after `start`, kept across pairs: each character is looked at once.
  let equals = -1;
  while (start < text.length) {
    let end = text.indexOf('&', start);
    if (end < 0) end = text.length;
    if (end > start) {
      if (equals !== Number.POSITIVE_INFINITY && equals < start) {
        equals = text.indexOf('=', start);
        if (equals < 0) equals = Number.POSITIVE_INFINITY;
      }
      const split = Math.min(equals, end);
      const name = formDecoded(text.slice(start, split));
      const value = split < end ? formDecoded(text.slice(split + 1, end)) : '';
      if (name === undefined || value === undefined) {
        const all: string[] = [];
        for (const [n, v] of new URLSearchParams(text)) all.push(n, v);
        return all;
      }
      pairs.push(name, value);
    }
    start = end + 1;
  }
  return pairs;
}

/** One name or value, decoded; `undefined` when `decodeURIComponent` refuses it. */
function formDecoded(raw: string): string | undefined {
  if (raw.indexOf('%') < 0 && raw.indexOf('+') < 0) return raw;
  try {
    return decodeURIComponent(raw.replaceAll('+', ' '));
  } catch {
    return undefined;
  }
}

function checked(name: string, value: string): string {
  if (FREE_TEXT.has(name)) return value;
  const problem = unstorableText(value);
  if (problem !== undefined) throw invalidRequest(`The "${name}" parameter contains ${problem}.`);
  return value;
}

/** Whether the request declares a form body (`application/x-www-form-urlencoded`). */
export function isFormContentType(request: Request): boolean {
  const type = request.headers.get('content-type');
  if (type === FORM_TYPE) return true;
  return type !== null && type.split(';')[0]!.trim().toLowerCase() === FORM_TYPE;
}

const FORM_TYPE = 'application/x-www-form-urlencoded';

/**
 * Reads a form body (RFC 6749 §3.2: `application/x-www-form-urlencoded`, UTF-8). An empty body is
 * accepted with any content type; a non-empty body of another type is `invalid_request` (400), the
 * RFC's error model having no code of its own for it. A body already in memory gives the
 * parameters at once (see `bodyText`); callers await it in an async function.
 */
export function readForm(request: Request, maxBytes: number): Awaitable<Params> {
  const text = bodyText(request, maxBytes);
  return text instanceof Promise ? text.then((read) => formOf(request, read)) : formOf(request, text);
}

function formOf(request: Request, text: string): Params {
  if (text.length > 0 && !isFormContentType(request)) {
    throw oauthError('invalid_request', 'The request body must be application/x-www-form-urlencoded.');
  }
  return Params.fromForm(text);
}

/** Query parameters of a URL with the no-repetition rule. */
export function queryParams(url: URL): Params {
  return new Params(url.searchParams);
}
