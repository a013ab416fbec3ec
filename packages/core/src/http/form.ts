import { invalidRequest, oauthError } from '../errors.js';
import { readBodyText } from './body.js';
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
  readonly #values: Map<string, string>;
  readonly #duplicates: Set<string>;
  readonly #source: URLSearchParams;

  constructor(source: URLSearchParams) {
    this.#source = source;
    this.#values = new Map();
    this.#duplicates = new Set();
    for (const [name, value] of source) {
      if (this.#values.has(name)) this.#duplicates.add(name);
      else this.#values.set(name, value);
    }
  }

  /**
   * The value of `name`; `undefined` when absent or empty (RFC 6749 §3.1: parameters sent without a
   * value are treated as omitted). Throws `invalid_request` when it was sent more than once.
   */
  get(name: string): string | undefined {
    if (this.#duplicates.has(name)) throw invalidRequest(`The "${name}" parameter is repeated.`);
    const value = this.#values.get(name);
    if (value === '' || value === undefined) return undefined;
    return checked(name, value);
  }

  /**
   * Every non-empty value of a parameter that may be repeated (RFC 8707 §2 `resource`), in the
   * order sent; empty when absent.
   */
  getAll(name: string): string[] {
    return this.#source
      .getAll(name)
      .filter((value) => value !== '')
      .map((value) => checked(name, value));
  }

  /** Like {@link get}, but throws `invalid_request` when the parameter is missing. */
  require(name: string): string {
    const value = this.get(name);
    if (value === undefined) throw invalidRequest(`The "${name}" parameter is missing.`);
    return value;
  }

  /** These parameters with `name` set to `value` (replacing every value of it). */
  with(name: string, value: string): Params {
    const source = new URLSearchParams(this.#source);
    source.set(name, value);
    return new Params(source);
  }

  /** Whether `name` was sent (with or without a value). */
  has(name: string): boolean {
    return this.#values.has(name);
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
  return type !== null && type.split(';')[0]!.trim().toLowerCase() === 'application/x-www-form-urlencoded';
}

/**
 * Reads a form body (RFC 6749 §3.2: `application/x-www-form-urlencoded`, UTF-8). An empty body is
 * accepted with any content type; a non-empty body of another type is `invalid_request` (400), the
 * RFC's error model having no code of its own for it.
 */
export async function readForm(request: Request, maxBytes: number): Promise<Params> {
  const text = await readBodyText(request, maxBytes);
  if (text.length > 0 && !isFormContentType(request)) {
    throw oauthError('invalid_request', 'The request body must be application/x-www-form-urlencoded.');
  }
  return new Params(new URLSearchParams(text));
}

/** Query parameters of a URL with the no-repetition rule. */
export function queryParams(url: URL): Params {
  return new Params(url.searchParams);
}
