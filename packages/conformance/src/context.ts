/**
 * What a test module works with: the configuration, the server's discovered metadata, an HTTP
 * client that records every exchange, the browser, and the ways to report what it finds — a
 * failure (a requirement broken), a warning (a recommendation unmet), a stop (the module cannot go
 * on) or a skip (the module does not apply) — as the OpenID Foundation's suite reports them.
 */
import type { ConformanceConfig } from './config.js';
import type { Exchange, Finding } from './types.js';

/** Thrown to end a module early: after a failure it cannot go past, or to skip it. */
export class ModuleEnd extends Error {
  constructor(
    readonly kind: 'stop' | 'skip',
    message: string,
  ) {
    super(message);
  }
}

/** An HTTP answer with its body read, and the exchange that produced it. */
export interface HttpAnswer {
  readonly status: number;
  readonly headers: Headers;
  readonly text: string;
  /** The body parsed as JSON when it is JSON, else `undefined`. */
  readonly json: unknown;
  readonly exchange: Exchange;
}

/** Options of {@link ModuleContext.request}. */
export interface RequestOptions {
  readonly headers?: Record<string, string>;
  /** Sent as `application/x-www-form-urlencoded`. */
  readonly form?: Record<string, string | undefined>;
  readonly body?: string;
  /** Follow redirects (default: no, the answer is the 3xx itself). */
  readonly follow?: boolean;
}

const MAX_BODY_KEPT = 4000;

function headerRecord(headers: Headers): Record<string, string> {
  const record: Record<string, string> = {};
  headers.forEach((value, name) => {
    record[name] = value;
  });
  return record;
}

/** The form body of `form`, leaving out undefined members. */
export function formBody(form: Record<string, string | undefined>): string {
  const params = new URLSearchParams();
  for (const [name, value] of Object.entries(form)) if (value !== undefined) params.append(name, value);
  return params.toString();
}

/** The context one module runs in. A new one per module; `discovery` is shared by the plan. */
export class ModuleContext {
  readonly failures: Finding[] = [];
  readonly warnings: Finding[] = [];
  /** Every exchange of the module, in order. */
  readonly exchanges: Exchange[] = [];
  private readonly cleanups: (() => Promise<void>)[] = [];

  constructor(
    readonly issuer: string,
    readonly config: ConformanceConfig,
    /** Writes a progress line (`--verbose`). */
    readonly log: (line: string) => void = () => {},
  ) {}

  /** Sends a request and records the exchange. Network errors end the module (a failure). */
  async request(method: string, url: string, options: RequestOptions = {}): Promise<HttpAnswer> {
    const headers: Record<string, string> = { ...options.headers };
    let body = options.body;
    if (options.form) {
      body = formBody(options.form);
      headers['content-type'] ??= 'application/x-www-form-urlencoded';
    }
    const request = { method, url, headers, ...(body === undefined ? {} : { body }) };
    let response: Response;
    try {
      response = await fetch(url, {
        method,
        headers,
        ...(body === undefined ? {} : { body }),
        redirect: options.follow ? 'follow' : 'manual',
        signal: AbortSignal.timeout(this.config.browser_timeout_ms ?? 10_000),
      });
    } catch (error) {
      const exchange: Exchange = { request, error: String((error as Error).cause ?? error) };
      this.exchanges.push(exchange);
      return this.stop('RFC9110-15', `${method} ${url} failed: ${exchange.error}`, exchange);
    }
    const text = await response.text();
    const exchange: Exchange = {
      request,
      response: {
        status: response.status,
        headers: headerRecord(response.headers),
        body: text.length > MAX_BODY_KEPT ? `${text.slice(0, MAX_BODY_KEPT)}… (${text.length} bytes)` : text,
      },
    };
    this.exchanges.push(exchange);
    let json: unknown;
    if (/json/i.test(response.headers.get('content-type') ?? '')) {
      try {
        json = JSON.parse(text);
      } catch {
        json = undefined;
      }
    }
    return { status: response.status, headers: response.headers, text, json, exchange };
  }

  /** Records a broken requirement; the module goes on. */
  fail(section: string, message: string, exchange?: Exchange): void {
    this.failures.push({ section, message, ...(exchange ? { exchange } : {}) });
  }

  /** Records an unmet recommendation (or an optional feature answered oddly); not a failure. */
  warn(section: string, message: string, exchange?: Exchange): void {
    this.warnings.push({ section, message, ...(exchange ? { exchange } : {}) });
  }

  /** Fails unless `condition`; returns it, so that a module can branch on what it saw. */
  check(condition: boolean, section: string, message: string, exchange?: Exchange): boolean {
    if (!condition) this.fail(section, message, exchange);
    return condition;
  }

  /** Records a failure and ends the module (what follows depends on what failed). */
  stop(section: string, message: string, exchange?: Exchange): never {
    this.fail(section, message, exchange);
    throw new ModuleEnd('stop', message);
  }

  /** Ends the module as skipped: the server does not offer what it checks, or the config lacks it. */
  skip(reason: string): never {
    throw new ModuleEnd('skip', reason);
  }

  /** Waits, for modules whose check is about time (code reuse after 30 s, `max_age=1`). */
  sleep(ms: number): Promise<void> {
    return new Promise((resolve) => setTimeout(resolve, ms));
  }

  /** Runs `cleanup` when the module ends, whatever its outcome. */
  onEnd(cleanup: () => Promise<void>): void {
    this.cleanups.push(cleanup);
  }

  /** Runs the cleanups (the runner calls it). */
  async end(): Promise<void> {
    for (const cleanup of this.cleanups.splice(0).reverse()) {
      try {
        await cleanup();
      } catch {
        // A cleanup that fails (a browser already gone) changes no result.
      }
    }
  }
}
