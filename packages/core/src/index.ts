/**
 * `@gatehousejs/core`: an OAuth 2.0 authorization server, session login and bearer protection as
 * functions of Web `Request` → `Response`. Runtime-neutral: no Node.js built-ins in this entry.
 *
 * The application entry: what a host writes to create and configure an instance. The other
 * audiences have their own entries: `/protect` (operations and resource servers), `/ui` (pages and
 * own sign-in), `/node` (Node.js specifics), `/adapter` (server-adapter authors), `/engine`
 * (storage-engine authors) and `/testing` (their conformance kit).
 * @packageDocumentation
 */

export type { AuditRecord, AuditSink } from './audit/audit-record.js';
export { jsonLinesAuditSink } from './audit/json-lines-sink.js';
export {
  type ConfigurationErrorCode,
  ERROR_CODES,
  type GatehouseErrorCode,
  type OutboundFetchErrorCode,
  type StorageUnavailableReason,
  type UsageErrorCode,
} from './error-codes.js';
export {
  ConfigurationError,
  type ConfigurationErrorOptions,
  ERROR_TABLE,
  ProtocolError,
  type ProtocolErrorCode,
  type ProtocolErrorOptions,
  StorageUnavailableError,
  UsageError,
} from './errors.js';
export type { AdminActor, EventContext, GatehouseEvent, Logger } from './events.js';
export { createGatehouse, type Gatehouse } from './gatehouse.js';
export {
  createGatehouseHost,
  type GatehouseHost,
  type GatehouseHostOptions,
  type HostedInstanceOptions,
  type InstanceLayout,
} from './host/gatehouse-host.js';
export {
  type OutboundFetch,
  OutboundFetchError,
  type OutboundRequest,
} from './http/guarded-fetch.js';
export { CIBA_GRANT } from './oauth2/ciba/feature.js';
export { JWT_BEARER_ASSERTION_TYPE } from './oauth2/client-auth/private-key-jwt.js';
export { DEVICE_CODE_GRANT } from './oauth2/device/feature.js';
export { JWT_BEARER_GRANT } from './oauth2/jwt-assertion.js';
export {
  type ExchangedToken,
  TOKEN_EXCHANGE_GRANT,
  TOKEN_TYPES,
  type TokenExchangeRequest,
} from './oauth2/token-exchange/exchanged-token.js';
export type {
  AdminOptions,
  AuthApiOptions,
  AuthorizationDetailsOptions,
  BackchannelLogoutOptions,
  ClientJwksOptions,
  ClientMetadataDocumentOptions,
  CorsOptions,
  DeviceAuthorizationOptions,
  DynamicRegistrationOptions,
  ExtensionGrant,
  ExtensionGrantDecision,
  ExtensionGrantRequest,
  FetchBudgetOptions,
  GatehouseOptions,
  KeyRotationOptions,
  PasswordCheckOptions,
  PushedAuthorizationRequestOptions,
  RateLimitOptions,
  RequestObjectOptions,
  SessionOptions,
  TelemetryOptions,
  TokenExchangeDecision,
  TokenExchangeOptions,
  TrustedIssuerOptions,
} from './options.js';
export { type MemoryUser, type MemoryUserStoreOptions, memoryUserStore } from './passwords/memory-users.js';
export type { PasswordHasher } from './passwords/password-hasher.js';
export {
  type PasswordUser,
  type PasswordUserStoreOptions,
  type PasswordVerifier,
  passwordUserStore,
} from './passwords/password-user-store.js';
export { type Pbkdf2HasherOptions, pbkdf2Hasher } from './passwords/pbkdf2.js';
export type { PushedRevocationsOptions } from './revocation/revocation-mirror.js';
export { memoryClientStore } from './storage/memory/clients.js';
export { memoryEngine, memoryStorage } from './storage/memory/engine.js';
export { withMemoryFallback } from './storage/memory/fallback.js';
export type { InstanceStorage } from './storage/required-stores.js';
// The storage types an application names: what `storage` takes and the stores a host brings. The
// whole contract, for engine authors (the field types of records among it), is
// `@gatehousejs/core/engine`.
export type {
  ClientRecord,
  ClientStore,
  GatehouseStorage,
  StorageEngine,
  UserLookup,
  UserRecord,
  UserStore,
} from './storage/types.js';
export type { ClaimsHook, ClaimsRequest, ClaimsTarget } from './tokens/host-claims.js';
export type { KeySigner } from './tokens/key-signer.js';
export { generateKeys, type PrivateJwk, type SigningAlgorithm } from './tokens/keys.js';
export type { RotateOptions, SigningKeyInfo, SigningKeys } from './tokens/rotation/signing-keys.js';
export { generateClientSecret, hashClientSecret, type RandomBytes } from './tokens/secrets.js';
