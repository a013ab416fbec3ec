/**
 * The stable codes of Gatehouse's errors outside the protocol (as jose's `JOSEErrorCode`): what a
 * host can branch on instead of parsing messages, which may be reworded. Protocol errors answered
 * to clients carry their RFC code instead (`ERROR_TABLE` of `errors.ts`). One entry per code: its
 * error class and what it means. `docs/error-codes.md` is generated from this table and from
 * `ERROR_TABLE` by `scripts/error-codes.mjs` (a test fails when it is stale).
 */
export const ERROR_CODES = {
  // Options and set-up: thrown by createGatehouse, createGatehouseHost, the user stores, the
  // instance's methods. `option` names the option path when there is one.
  ERR_CONFIG_MISSING_OPTION: {
    thrownAs: 'ConfigurationError',
    meaning: 'A required option is missing (or the options themselves); `option` names it.',
  },
  ERR_CONFIG_UNKNOWN_OPTION: {
    thrownAs: 'ConfigurationError',
    meaning: 'An option name Gatehouse does not know (a typo: the message suggests the nearest name).',
  },
  ERR_CONFIG_INVALID_OPTION: {
    thrownAs: 'ConfigurationError',
    meaning: 'An option has a value that cannot work (type, range, format); `option` names it.',
  },
  ERR_CONFIG_CONFLICTING_OPTIONS: {
    thrownAs: 'ConfigurationError',
    meaning:
      'Options that contradict each other (a default scope outside `scopes`, `instanceId` without an engine, …).',
  },
  ERR_CONFIG_INVALID_KEY: {
    thrownAs: 'ConfigurationError',
    meaning:
      'A key of `keys` cannot be used (type, `alg`, missing `kid` or private part, not importable); `option` is `keys[i]`.',
  },
  ERR_CONFIG_STORE_CAPABILITY: {
    thrownAs: 'ConfigurationError',
    meaning:
      'The storage lacks a method the requested feature needs (e.g. `revokeUser` without `revokeSubject`).',
  },
  ERR_CONFIG_STORE_METHOD: {
    thrownAs: 'ConfigurationError',
    meaning:
      "A store of `storage` (or of an engine's view) lacks a method of its interface, or has a member of a method's name that is not a function; `option` names the first (`storage.grants.isRevoked`), the message every one.",
  },
  ERR_CONFIG_WEAK_KEY_ENCRYPTION_KEY: {
    thrownAs: 'ConfigurationError',
    meaning: 'A key-encryption key of `keyRotation` is not 128, 192 or 256 bits (16, 24 or 32 random bytes).',
  },
  ERR_CONFIG_UNREADABLE_STORED_KEY: {
    thrownAs: 'ConfigurationError',
    meaning:
      'A stored signing key (`keyRotation`) cannot be decrypted with the configured key-encryption keys (another KEK sealed it, or it was altered): the instance does not start.',
  },
  ERR_CONFIG_UNTRUSTED_KEY_RECORD: {
    thrownAs: 'ConfigurationError',
    meaning:
      'The stored signing keys (`keyRotation`) are refused: their MAC does not verify under the configured key-encryption keys (altered), or the record is older than one the process has seen (rolled back). At start the instance does not start; later the keys known so far stay in use.',
  },
  // Calls of the public API with arguments that cannot work.
  ERR_INVALID_ARGUMENT: {
    thrownAs: 'UsageError',
    meaning: 'A function was called with an argument it cannot use; `argument` names it.',
  },
  ERR_INVALID_INSTANCE: {
    thrownAs: 'UsageError',
    meaning:
      'A call needs an instance made by `createGatehouse` (or one instance of a host) and got something else.',
  },
  ERR_DUPLICATE_ROUTE: {
    thrownAs: 'UsageError',
    meaning: 'Two routes or operations at one method and path, or a path that does not start with "/".',
  },
  // Outbound fetches of client-chosen URLs (`jwks_uri`, client ID metadata documents).
  ERR_FETCH_REFUSED_URL: {
    thrownAs: 'OutboundFetchError',
    meaning:
      'The URL is refused before any request: not https, credentials in it, a private or loopback address.',
  },
  ERR_FETCH_FAILED: {
    thrownAs: 'OutboundFetchError',
    meaning: 'The request failed (connection, DNS, TLS), or its body could not be read or is not UTF-8.',
  },
  ERR_FETCH_TIMEOUT: {
    thrownAs: 'OutboundFetchError',
    meaning: 'No whole answer within the deadline.',
  },
  ERR_FETCH_REDIRECT: {
    thrownAs: 'OutboundFetchError',
    meaning: 'The answer was a redirect, which is never followed.',
  },
  ERR_FETCH_STATUS: {
    thrownAs: 'OutboundFetchError',
    meaning:
      'The answer had another status than expected (200; 200 or 204 for a back-channel logout request).',
  },
  ERR_FETCH_TOO_LARGE: {
    thrownAs: 'OutboundFetchError',
    meaning: 'The body is larger than the cap (declared or counted).',
  },
  // Storage: StorageUnavailableError is a ProtocolError (answered 503 temporarily_unavailable), so
  // its stable code is its `storageCode`.
  ERR_STORAGE_UNAVAILABLE: {
    thrownAs: 'StorageUnavailableError',
    meaning: 'A store call failed (rejected or threw); `cause` holds its error. Answered 503.',
  },
  ERR_STORAGE_TIMEOUT: {
    thrownAs: 'StorageUnavailableError',
    meaning: 'A store call took longer than `storageTimeoutMs`. Answered 503.',
  },
  ERR_STORAGE_FULL: {
    thrownAs: 'StoreFullError',
    meaning:
      'A bounded in-memory store is full until entries expire. Answered 503 when it reaches a request.',
  },
} as const satisfies Readonly<Record<string, { readonly thrownAs: string; readonly meaning: string }>>;

/** Every code of {@link ERROR_CODES}. */
export type GatehouseErrorCode = keyof typeof ERROR_CODES;

/** The codes of one error class. */
export type ErrorCodeOf<Class extends string> = {
  [C in GatehouseErrorCode]: (typeof ERROR_CODES)[C]['thrownAs'] extends Class ? C : never;
}[GatehouseErrorCode];

/** The codes of `ConfigurationError`. */
export type ConfigurationErrorCode = ErrorCodeOf<'ConfigurationError'>;
/** The codes of `UsageError`. */
export type UsageErrorCode = ErrorCodeOf<'UsageError'>;
/** The codes of `OutboundFetchError`. */
export type OutboundFetchErrorCode = ErrorCodeOf<'OutboundFetchError'>;
/** The `storageCode` codes of `StorageUnavailableError`. */
export type StorageUnavailableReason = ErrorCodeOf<'StorageUnavailableError'>;
