import type { Logger } from './events.js';

/**
 * The one error model. Handlers throw a {@link ProtocolError}; the router turns it into a response
 * with {@link ProtocolError.toResponse}. Nothing else builds error JSON.
 */

/** Error codes of RFC 6749 §4.1.2.1 / §5.2, RFC 6750 §3.1, RFC 7009 §2.2.1 and Gatehouse's own. */
export type ProtocolErrorCode =
  | 'invalid_request'
  | 'invalid_client'
  | 'invalid_grant'
  | 'unauthorized_client'
  | 'unsupported_grant_type'
  | 'unsupported_response_type'
  | 'unsupported_token_type'
  | 'invalid_scope'
  | 'access_denied'
  | 'invalid_token'
  | 'insufficient_scope'
  | 'server_error'
  | 'temporarily_unavailable'
  | 'not_found'
  | 'method_not_allowed'
  | 'payload_too_large'
  | 'unsupported_media_type'
  | 'too_many_requests'
  | 'unauthorized'
  | 'forbidden';

/** Options of {@link ProtocolError}. */
export interface ProtocolErrorOptions {
  /** HTTP status. Default 400. */
  readonly status?: number;
  /** Extra response headers (`WWW-Authenticate`, `Allow`, `Retry-After`, …). */
  readonly headers?: Readonly<Record<string, string>>;
  /** The underlying error, for logs only: never sent to the client. */
  readonly cause?: unknown;
}

/** An error that has a well-defined protocol answer. */
export class ProtocolError extends Error {
  override readonly name = 'ProtocolError';
  readonly status: number;
  readonly headers: Readonly<Record<string, string>>;

  /** The `error_description` field: for developers, never containing secrets. */
  readonly description: string;

  constructor(
    /** The `error` field. */
    readonly code: ProtocolErrorCode,
    description: string,
    options: ProtocolErrorOptions = {},
  ) {
    const text = errorDescriptionText(description);
    super(text, { cause: options.cause });
    this.description = text;
    this.status = options.status ?? 400;
    this.headers = options.headers ?? {};
  }

  /** The RFC 6749 §5.2 JSON answer: `{ error, error_description }`, never cached. */
  toResponse(): Response {
    const headers = new Headers(this.headers);
    headers.set('Content-Type', 'application/json;charset=UTF-8');
    headers.set('Cache-Control', 'no-store');
    headers.set('Pragma', 'no-cache');
    return new Response(JSON.stringify({ error: this.code, error_description: this.description }), {
      status: this.status,
      headers,
    });
  }
}

/** A storage engine failed or timed out: the request is answered 503 and nothing was written. */
export class StorageUnavailableError extends ProtocolError {
  constructor(cause: unknown) {
    super('temporarily_unavailable', 'The service is temporarily unavailable; try again shortly.', {
      status: 503,
      headers: { 'Retry-After': '1' },
      cause,
    });
  }
}

/**
 * The one conversion of anything thrown while answering a request into a response: a
 * {@link ProtocolError} gives its own answer (logged when it is a 5xx), anything else is a bug,
 * logged and answered with a bare 500 that reveals nothing.
 */
export function errorResponse(error: unknown, logger: Logger): Response {
  if (error instanceof ProtocolError) {
    if (error.status >= 500) logger.error(`gatehouse: ${error.description}`, error.cause);
    return error.toResponse();
  }
  logger.error('gatehouse: unexpected error', error);
  return new ProtocolError('server_error', 'The server could not complete the request.', {
    status: 500,
  }).toResponse();
}

/** Thrown by {@link createGatehouse} for options that cannot work, with a precise message. */
export class ConfigurationError extends Error {
  override readonly name = 'ConfigurationError';
}

/**
 * `error_description` text restricted to the characters RFC 6749 §5.2 and RFC 6750 §3 allow
 * (%x20-21 / %x23-5B / %x5D-7E): double quotes become single quotes, the section sign becomes
 * "section", anything else outside printable ASCII becomes "?". Applied to every error, so neither
 * a description nor an echoed input can break a client's parser or a header.
 */
export function errorDescriptionText(text: string): string {
  return text
    .replace(/"/g, "'")
    .replace(/\\/g, '/')
    .replace(/§ ?/g, 'section ')
    .replace(/[^\x20-\x7e]/g, '?');
}

/** Quotes a value for an auth-param of `WWW-Authenticate` (RFC 9110 §11.2). */
export function quoteAuthParam(value: string): string {
  return `"${value.replace(/["\\]/g, '\\$&')}"`;
}

/** 400 `invalid_request`. */
export const invalidRequest = (description: string) => new ProtocolError('invalid_request', description);

/** 400 `invalid_grant`. */
export const invalidGrant = (description: string) => new ProtocolError('invalid_grant', description);

/** 400 `invalid_scope`. */
export const invalidScope = (description: string) => new ProtocolError('invalid_scope', description);

/**
 * 401 `invalid_client` with a `WWW-Authenticate: Basic` challenge (RFC 6749 §5.2). Unknown client
 * and wrong secret use the same description so that client ids cannot be probed.
 */
export const invalidClient = (realm: string) =>
  new ProtocolError('invalid_client', 'Client authentication failed.', {
    status: 401,
    headers: { 'WWW-Authenticate': `Basic realm=${quoteAuthParam(realm)}, charset="UTF-8"` },
  });
