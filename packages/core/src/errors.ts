import type { ConfigurationErrorCode, StorageUnavailableReason, UsageErrorCode } from './error-codes.js';
import type { Logger } from './events.js';
import { type Reply, toResponse } from './http/reply.js';
import { noStoreJson } from './http/responses.js';
import { recordedText } from './recorded-text.js';
import { isStoreFull } from './storage/store-full.js';

/**
 * The one error model. Handlers throw a {@link ProtocolError} naming an error code; the code's
 * HTTP status (and whether it needs a `WWW-Authenticate` challenge) comes from {@link ERROR_TABLE},
 * never from the call site. {@link errorAnswer} turns whatever was thrown into the answer. Nothing
 * else builds error JSON.
 */

/**
 * Every protocol error code and its status. One entry per code: a new one (OpenID Connect's
 * `login_required`, DPoP's `invalid_dpop_proof`, …) is one line here.
 *
 * `challenge: true` marks the 401 codes: RFC 9110 §15.5.2 requires a `WWW-Authenticate` challenge
 * on every 401, so `oauthError` does not compile for them without one.
 */
export const ERROR_TABLE = {
  // RFC 6749 §5.2 (token endpoint) and §4.1.2.1 (authorization response)
  invalid_request: { status: 400 },
  /** §5.2 allows 400 or 401; 401 with a challenge is required when the client used `Authorization`, and Gatehouse answers alike for every method so that the method cannot be probed. */
  invalid_client: { status: 401, challenge: true },
  invalid_grant: { status: 400 },
  unauthorized_client: { status: 400 },
  unsupported_grant_type: { status: 400 },
  unsupported_response_type: { status: 400 },
  invalid_scope: { status: 400 },
  /** An authorization-response code: its status matters only when it is shown as a page. */
  access_denied: { status: 400 },
  // OpenID Connect Core §3.1.2.6 (authorization responses) and §6 (request objects)
  login_required: { status: 400 },
  consent_required: { status: 400 },
  interaction_required: { status: 400 },
  request_not_supported: { status: 400 },
  request_uri_not_supported: { status: 400 },
  // RFC 6749 §4.1.2.1 (the server's own failures, also answered by every endpoint)
  server_error: { status: 500 },
  temporarily_unavailable: { status: 503 },
  // RFC 7009 §2.2.1
  unsupported_token_type: { status: 400 },
  // RFC 8707 §2
  invalid_target: { status: 400 },
  // RFC 9396 §5 (authorization and token endpoints)
  invalid_authorization_details: { status: 400 },
  // RFC 9101 §6.3 with OpenID Connect Core §3.1.2.6 (a request object that cannot be used)
  invalid_request_object: { status: 400 },
  // RFC 7591 §3.2.2 (dynamic client registration)
  invalid_redirect_uri: { status: 400 },
  invalid_client_metadata: { status: 400 },
  // RFC 6750 §3.1
  invalid_token: { status: 401, challenge: true },
  // RFC 9449 §5 (token endpoint, 400) and §7.1 (resource servers answer 401 with a DPoP challenge).
  invalid_dpop_proof: { status: 400 },
  use_dpop_nonce: { status: 400 },
  insufficient_scope: { status: 403 },
  // Gatehouse's own, named after their HTTP status (RFC 9110 §15, RFC 6585 §4)
  /** No credentials at all: RFC 6750 §3.1 puts no `error` in the challenge then, the body still has one. */
  unauthorized: { status: 401, challenge: true },
  forbidden: { status: 403 },
  not_found: { status: 404 },
  /** The admin API: a client the host registered, which only the host can remove. */
  not_deletable: { status: 409 },
  /** The admin API: the instance's keys are the `keys` option's, rotated by configuration. */
  not_rotatable: { status: 409 },
  method_not_allowed: { status: 405 },
  payload_too_large: { status: 413 },
  too_many_requests: { status: 429 },
  // RFC 8628 §3.5 (device access token responses)
  authorization_pending: { status: 400 },
  slow_down: { status: 400 },
  expired_token: { status: 400 },
  // CIBA Core 1.0 §13 (backchannel authentication error responses)
  unknown_user_id: { status: 400 },
  invalid_binding_message: { status: 400 },
} as const satisfies Readonly<Record<string, { readonly status: number; readonly challenge?: true }>>;

/** An error code of {@link ERROR_TABLE}: the `error` field of every error answer. */
export type ProtocolErrorCode = keyof typeof ERROR_TABLE;

/** The codes whose answer is a 401, which must carry a `WWW-Authenticate` challenge. */
export type ChallengedErrorCode = {
  [C in ProtocolErrorCode]: (typeof ERROR_TABLE)[C] extends { readonly challenge: true } ? C : never;
}[ProtocolErrorCode];

/** Options of {@link ProtocolError}: what the answer needs besides the code's own status. */
export interface ProtocolErrorOptions {
  /**
   * The `WWW-Authenticate` field value (one or more challenges, RFC 9110 §11.6.1). Sent with any
   * code (RFC 6750 §3.1 challenges a 400 `invalid_request` and a 403 `insufficient_scope` too);
   * required for the 401 codes.
   */
  readonly challenge?: string;
  /**
   * The error is about the credentials of the `Authorization` header (missing, malformed or not
   * matching): answered 401 with {@link challenge}, whatever the code's own status, as RFC 9110
   * §15.5.2 answers a failed HTTP authentication. The Auth API does this for `invalid_request`
   * and `invalid_grant`, since its user credentials travel in `Authorization: Basic`.
   */
  readonly unauthenticated?: boolean;
  /** The methods the resource allows (`Allow`, RFC 9110 §10.2.1), for `method_not_allowed`. */
  readonly allow?: readonly string[];
  /** Seconds after which to try again (`Retry-After`, RFC 9110 §10.2.3), for 429 and 503. */
  readonly retryAfter?: number;
  /** A fresh DPoP server nonce (`DPoP-Nonce`, RFC 9449 §8), sent with `use_dpop_nonce`. */
  readonly dpopNonce?: string;
  /** The underlying error, for logs only: never sent to the client. */
  readonly cause?: unknown;
  /**
   * Why, in the operator's words, for the debug log only (never sent): e.g. which client
   * authentication method is registered and which was used, where the answer itself stays
   * generic so that nothing can be probed.
   */
  readonly reason?: string;
}

/** An error that has a well-defined protocol answer. */
export class ProtocolError extends Error {
  override readonly name = 'ProtocolError';
  /** The HTTP status, from {@link ERROR_TABLE} (401 for an `unauthenticated` error). */
  readonly status: number;
  /** The answer's header fields besides the JSON ones: `WWW-Authenticate`, `Allow`, `Retry-After`. */
  readonly headers: Readonly<Record<string, string>>;

  /** The `error_description` field: for developers, never containing secrets. */
  readonly description: string;
  /** {@link ProtocolErrorOptions.reason}: the debug log's reason, never sent. */
  readonly reason: string | undefined;

  constructor(
    /** The `error` field. */
    readonly code: ProtocolErrorCode,
    description: string,
    options: ProtocolErrorOptions = {},
  ) {
    const text = errorDescriptionText(description);
    super(text, { cause: options.cause });
    this.description = text;
    this.reason = options.reason;
    const entry: { readonly status: number } | undefined = ERROR_TABLE[code];
    if (entry === undefined)
      throw new UsageError(
        `ProtocolError: unknown error code ${JSON.stringify(code)}.`,
        'ERR_INVALID_ARGUMENT',
        'code',
      );
    this.status = options.unauthenticated && options.challenge !== undefined ? 401 : entry.status;
    const headers: Record<string, string> = {};
    if (options.challenge !== undefined) headers['WWW-Authenticate'] = options.challenge;
    if (options.allow !== undefined) headers.Allow = options.allow.join(', ');
    if (options.retryAfter !== undefined) headers['Retry-After'] = String(options.retryAfter);
    if (options.dpopNonce !== undefined) headers['DPoP-Nonce'] = options.dpopNonce;
    this.headers = headers;
  }

  /** The RFC 6749 §5.2 JSON answer `{ error, error_description }`, never cached, as a `Response`. */
  toResponse(): Response {
    return toResponse(this.toReply());
  }

  /** {@link toResponse} as a `Reply`, the form every Gatehouse answer takes before a server sends it. */
  toReply(): Reply {
    return noStoreJson(
      { error: this.code, error_description: this.description },
      { status: this.status, headers: this.headers },
    );
  }
}

/**
 * A {@link ProtocolError} for `code`, the way Gatehouse's own call sites build one: the compiler
 * insists on a `challenge` for the 401 codes.
 */
export function oauthError<C extends ProtocolErrorCode>(
  code: C,
  description: string,
  ...[options]: C extends ChallengedErrorCode
    ? [options: ProtocolErrorOptions & { readonly challenge: string }]
    : [options?: ProtocolErrorOptions]
): ProtocolError {
  return new ProtocolError(code, description, options);
}

/**
 * A storage engine failed or timed out: the request is answered 503 and nothing was written. Its
 * `code` is the protocol's (`temporarily_unavailable`); its stable {@link storageCode} says which.
 */
export class StorageUnavailableError extends ProtocolError {
  /** `ERR_STORAGE_UNAVAILABLE` (the call failed; see `cause`) or `ERR_STORAGE_TIMEOUT`. */
  readonly storageCode: StorageUnavailableReason;
  constructor(cause: unknown, storageCode: StorageUnavailableReason = 'ERR_STORAGE_UNAVAILABLE') {
    super('temporarily_unavailable', 'The service is temporarily unavailable; try again shortly.', {
      retryAfter: 1,
      cause,
      reason: storageCode === 'ERR_STORAGE_TIMEOUT' ? 'a storage call timed out' : 'a storage call failed',
    });
    this.storageCode = storageCode;
  }
}

/**
 * The one conversion of anything thrown while answering a request into an answer: a
 * {@link ProtocolError} gives its own (logged when it is a 5xx), a full bounded store (stable code
 * `ERR_STORAGE_FULL`) 503 `temporarily_unavailable`, anything else is a bug, logged
 * and answered with a bare 500 `server_error` that reveals nothing. `what` names what failed in
 * the log line (never request data: it may hold credentials).
 */
export function errorAnswer(
  error: unknown,
  logger: Logger,
  what = 'unexpected error',
  request?: Request,
): Reply {
  // A bounded store at its bound (`StoreFullError`, or an engine's error of the same stable code
  // `ERR_STORAGE_FULL`): refused for now, never a 500. It stays full for a while: one log line per
  // interval, not one per request.
  if (isStoreFull(error)) return storeFullRefusal(error, logger).toReply();
  if (error instanceof ProtocolError) {
    if (error.status >= 500) logger.error(`gatehouse: ${error.description}`, error.cause);
    else if (logger.debug) logRefusal(logger.debug, error, request);
    return error.toReply();
  }
  logger.error(`gatehouse: ${what}`, error);
  return SERVER_ERROR.toReply();
}

/**
 * The debug log's line for a refused request: method, path (never the query, which may carry
 * codes or tokens), status, code and the reason. Written only when the debug log is on. The
 * request's values in it are cut: the method and path to 256 characters each, the reason (whose
 * own quotes of the request are cut where it is written, e.g. `clientNamed`) to
 * {@link MAX_LOGGED_REASON}, so that one request's line stays bounded whatever it sent.
 */
function logRefusal(debug: NonNullable<Logger['debug']>, error: ProtocolError, request?: Request): void {
  logRefusedRequest(debug, request, `${error.status} ${error.code}`, error.reason ?? error.description);
}

/**
 * The debug log's line for a request refused by an answer that is no error (introspection's
 * `{"active":false}`), bounded the same way: `outcome` says what was answered.
 */
export function logRefusedRequest(
  debug: NonNullable<Logger['debug']>,
  request: Request | undefined,
  outcome: string,
  why: string,
): void {
  let where = '';
  if (request) {
    try {
      where = ` ${recordedText(request.method)} ${recordedText(new URL(request.url).pathname)}`;
    } catch {}
  }
  debug(`gatehouse: refused${where}: ${outcome}: ${recordedText(why, MAX_LOGGED_REASON)}`);
}

/** Longest reason in a debug log line (a backstop: the values it quotes are cut to 256 already). */
const MAX_LOGGED_REASON = 1024;

const SERVER_ERROR = oauthError('server_error', 'The server could not complete the request.');
/** How a full store is answered (RFC 6749 §4.1.2.1 `temporarily_unavailable`, RFC 9110 §10.2.3). */
/**
 * What a full store (`StoreFullError`) is answered: 503 `temporarily_unavailable` with
 * `Retry-After`, logged at most once a minute per logger (it stays full for a while); when it
 * refused only the caller, whose partition holds its fair share (`shareSpent`), 429
 * `too_many_requests` with `Retry-After`, not logged.
 */
export function storeFullRefusal(error: Error, logger: Logger): ProtocolError {
  // Only this caller is refused (its partition holds its share): not an outage, nothing to log.
  if ((error as { shareSpent?: unknown }).shareSpent === true) return SHARE_SPENT;
  const now = Date.now();
  if (now - (storeFullLoggedAt.get(logger) ?? Number.NEGATIVE_INFINITY) >= STORE_FULL_LOG_INTERVAL_MS) {
    storeFullLoggedAt.set(logger, now);
    logger.error(
      `gatehouse: ${error.message} (requests that need it are answered 503; logged once a minute)`,
    );
  }
  return STORE_FULL;
}

const SHARE_SPENT = oauthError(
  'too_many_requests',
  'Too many requests from this network are waiting to be completed; try again later.',
  { retryAfter: 60 },
);

const STORE_FULL = oauthError(
  'temporarily_unavailable',
  'The service cannot take on more of this right now; try again later.',
  { retryAfter: 60 },
);
const STORE_FULL_LOG_INTERVAL_MS = 60_000;
/** When each logger last logged a full store (by logger, so instances with their own loggers each log). */
const storeFullLoggedAt = new WeakMap<Logger, number>();

/** Options of {@link ConfigurationError}. */
export interface ConfigurationErrorOptions {
  /** The stable code (`ERROR_CODES` of `error-codes.ts`). Default `ERR_CONFIG_INVALID_OPTION`. */
  readonly code?: ConfigurationErrorCode;
  /** The option path it is about (`session.cookieName`, `keys[0]`), when there is one. */
  readonly option?: string;
  readonly cause?: unknown;
}

/**
 * Thrown by `createGatehouse` (and `createGatehouseHost`, the user stores, the instance methods a
 * storage must support) for options that cannot work, with a precise message, a stable
 * {@link code} and the {@link option} path.
 */
export class ConfigurationError extends Error {
  override readonly name = 'ConfigurationError';
  /** What is wrong, stable across releases (the message may be reworded). */
  readonly code: ConfigurationErrorCode;
  /** The option path it is about (`session.cookieName`, `keys[0]`), when there is one. */
  readonly option: string | undefined;

  constructor(message: string, options: ConfigurationErrorOptions = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.code = options.code ?? 'ERR_CONFIG_INVALID_OPTION';
    this.option = options.option;
  }
}

/**
 * Thrown (as a `TypeError`) for a call of the public API that cannot work: an argument it cannot
 * use, something else than a Gatehouse instance, two routes at one path. {@link code} is stable.
 */
export class UsageError extends TypeError {
  override readonly name = 'UsageError';
  /** What is wrong, stable across releases (the message may be reworded). */
  readonly code: UsageErrorCode;
  /** The argument it is about (`userId`, `instanceId`), when there is one. */
  readonly argument: string | undefined;

  constructor(message: string, code: UsageErrorCode = 'ERR_INVALID_ARGUMENT', argument?: string) {
    super(message);
    this.code = code;
    this.argument = argument;
  }
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

/** The Basic challenge (RFC 7617 §2, with the UTF-8 charset of §2.1) of the realm. */
export function basicChallenge(realm: string): string {
  return `Basic realm=${quoteAuthParam(realm)}, charset="UTF-8"`;
}

/** 400 `invalid_request`. */
export const invalidRequest = (description: string) => oauthError('invalid_request', description);

/** 400 `invalid_grant`. */
export const invalidGrant = (description: string) => oauthError('invalid_grant', description);

/** 400 `invalid_scope`. */
export const invalidScope = (description: string) => oauthError('invalid_scope', description);

/**
 * 401 `invalid_client` with a `WWW-Authenticate: Basic` challenge (RFC 6749 §5.2). Unknown client
 * and wrong secret use the same description so that client ids cannot be probed.
 */
export const invalidClient = (realm: string, reason?: string) =>
  oauthError('invalid_client', 'Client authentication failed.', {
    challenge: basicChallenge(realm),
    ...(reason === undefined ? {} : { reason }),
  });
