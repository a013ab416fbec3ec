/**
 * The stable codes of {@link GatehouseClientError}. Branch on `code`, never on `message`.
 *
 * - `invalid_options`: `createClient` options are unusable (bad URL, http outside loopback, …).
 * - `secret_in_browser`: a `clientSecret` was given in a browser.
 * - `invalid_argument`: a method argument is unusable (e.g. a username containing `:`).
 * - `confidential_client_required`: the operation needs a client secret (introspection).
 * - `untrusted_origin`: a credentialed `client.fetch` to an origin that is not the instance's.
 * - `no_token`: `oauth` mode, or an operation that needs a token, with no usable token set; also
 *   a refresh that was in flight when `revoke()`/`logout()` signed out (its tokens are discarded).
 * - `no_refresh_token`: a refresh was asked for but the token set has no refresh token.
 * - `state_mismatch`: the callback's `state` is missing, unknown or already used (CSRF).
 * - `issuer_mismatch`: the callback's `iss` is not the instance (RFC 9207 mix-up defence).
 * - `authorization_error`: the callback reports an error; see {@link GatehouseClientError.error}.
 * - `token_request_failed`: the token endpoint refused the code exchange.
 * - `refresh_failed`: a refresh failed; if the server rejected the grant, the store was cleared
 *   (unless it holds another token set by then).
 * - `revocation_failed`, `introspection_failed`, `login_failed`, `logout_failed`,
 *   `session_check_failed`: the named server call failed.
 * - `invalid_response`: the server answered something that is not the protocol's shape, or an ID
 *   token that does not validate (signature, issuer, audience, lifetime, `nonce`, `auth_time`
 *   against `max_age`, or a refreshed one naming another user).
 * - `network_error`: the request did not reach the server (see `cause`).
 * - `device_authorization_failed`: the device flow (RFC 8628) ended without tokens; `error` says
 *   why: `access_denied` (the person chose Deny), `expired_token`, or the server's refusal.
 * - `cancelled`: the device flow's waiting was cancelled (`cancel()` or an aborted signal).
 */
export type GatehouseClientErrorCode =
  | 'invalid_options'
  | 'secret_in_browser'
  | 'invalid_argument'
  | 'confidential_client_required'
  | 'untrusted_origin'
  | 'no_token'
  | 'no_refresh_token'
  | 'state_mismatch'
  | 'issuer_mismatch'
  | 'authorization_error'
  | 'token_request_failed'
  | 'refresh_failed'
  | 'revocation_failed'
  | 'introspection_failed'
  | 'login_failed'
  | 'logout_failed'
  | 'session_check_failed'
  | 'invalid_response'
  | 'network_error'
  | 'device_authorization_failed'
  | 'cancelled';

/** Details of a {@link GatehouseClientError}. */
export interface GatehouseClientErrorOptions {
  /** The OAuth error code the server sent (`access_denied`, `invalid_grant`, …), if any. */
  readonly error?: string;
  /** The server's `error_description`, if any. */
  readonly errorDescription?: string;
  /** The HTTP status of the failed response, if any. */
  readonly status?: number;
  /** The underlying error. */
  readonly cause?: unknown;
}

/** The one error type of `@gatehousejs/client`, with a stable {@link GatehouseClientErrorCode}. */
export class GatehouseClientError extends Error {
  /** What went wrong, as a stable code. */
  readonly code: GatehouseClientErrorCode;
  /** The OAuth error code from the server (`access_denied`, `invalid_grant`, …), if any. */
  readonly error: string | undefined;
  /** The server's `error_description`, if any. */
  readonly errorDescription: string | undefined;
  /** The HTTP status of the failed response, if any. */
  readonly status: number | undefined;

  constructor(code: GatehouseClientErrorCode, message: string, options: GatehouseClientErrorOptions = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'GatehouseClientError';
    this.code = code;
    this.error = options.error;
    this.errorDescription = options.errorDescription;
    this.status = options.status;
  }
}

/** Whether `value` is a {@link GatehouseClientError}, optionally with the given code. */
export function isGatehouseClientError(
  value: unknown,
  code?: GatehouseClientErrorCode,
): value is GatehouseClientError {
  return value instanceof GatehouseClientError && (code === undefined || value.code === code);
}
