/**
 * `@gatehousejs/core`: an OAuth 2.0 authorization server, session login and bearer protection as
 * functions of Web `Request` → `Response`. Runtime-neutral: no Node.js built-ins in this entry.
 * @packageDocumentation
 */

export type { AuditRecord, AuditSink } from './audit/audit-record.js';
export { jsonLinesAuditSink } from './audit/json-lines-sink.js';
export { AUTH_API_ENDPOINTS } from './auth-api/endpoints.js';
export type { Awaitable } from './awaitable.js';
export {
  type ConfigurationErrorCode,
  ERROR_CODES,
  type ErrorCodeOf,
  type GatehouseErrorCode,
  type OutboundFetchErrorCode,
  type StorageUnavailableReason,
  type UsageErrorCode,
} from './error-codes.js';
export {
  type ChallengedErrorCode,
  ConfigurationError,
  type ConfigurationErrorOptions,
  ERROR_TABLE,
  ProtocolError,
  type ProtocolErrorCode,
  type ProtocolErrorOptions,
  StorageUnavailableError,
  UsageError,
} from './errors.js';
export type { EventContext, GatehouseEvent, Logger } from './events.js';
export { createGatehouse, type Gatehouse } from './gatehouse.js';
export {
  createGatehouseHost,
  type GatehouseHost,
  type GatehouseHostOptions,
  type HostedInstanceOptions,
  type InstanceLayout,
} from './host/gatehouse-host.js';
export { isInstanceName, MAX_INSTANCE_NAME_LENGTH } from './host/instance-name.js';
export { readBodyText } from './http/body.js';
export {
  type OutboundFetch,
  OutboundFetchError,
  type OutboundRequest,
  refusedUrlReason,
  runtimeFetch,
} from './http/guarded-fetch.js';
export { type AddressPolicy, refusedAddressReason } from './http/ip-address.js';
export { InteractionError, type InteractionErrorCode } from './interaction/interaction-error.js';
export { INTERACTION_PATHS } from './interaction/paths.js';
export type {
  ConsentResult,
  HostUser,
  InteractionDetails,
  InteractionRedirect,
  InteractionResult,
  InteractionStep,
  Interactions,
} from './interaction/types.js';
export {
  JWT_BEARER_ASSERTION_TYPE,
  MAX_ASSERTION_LIFETIME_SECONDS,
} from './oauth2/client-auth/private-key-jwt.js';
export {
  DEVICE_AUTHORIZATION_DEFAULTS,
  DEVICE_CODE_GRANT,
  type DeviceAuthorizationSettings,
} from './oauth2/device/feature.js';
export { JWT_BEARER_GRANT } from './oauth2/jwt-assertion.js';
export { ENDPOINTS } from './oauth2/metadata.js';
export { MAX_RESOURCE_LENGTH, MAX_RESOURCES_PER_REQUEST } from './oauth2/resource-indicators.js';
export {
  type ExchangedToken,
  TOKEN_EXCHANGE_GRANT,
  TOKEN_TYPES,
  type TokenExchangeRequest,
} from './oauth2/token-exchange/exchanged-token.js';
export { ID_JAG_TYP } from './oauth2/token-exchange/id-jag.js';
export type {
  AuthApiOptions,
  ClientJwksOptions,
  ClientMetadataDocumentOptions,
  ConsentGiven,
  ConsentMemory,
  ConsentOptions,
  CorsOptions,
  DeviceAuthorizationOptions,
  DpopOptions,
  DynamicRegistrationOptions,
  ExtensionGrant,
  ExtensionGrantDecision,
  ExtensionGrantRequest,
  FetchBudgetOptions,
  GatehouseOptions,
  InteractionOptions,
  KeyRotationOptions,
  PageSourceOptions,
  PasswordCheckOptions,
  PushedAuthorizationRequestOptions,
  RateLimitOptions,
  SessionOptions,
  TelemetryOptions,
  TokenExchangeDecision,
  TokenExchangeOptions,
  TrustedIssuerOptions,
  UiOptions,
  UiTexts,
} from './options.js';
export { CREDENTIAL_LIMITS } from './passwords/credential-limits.js';
export type { PasswordHasher } from './passwords/password-hasher.js';
export {
  type PasswordUser,
  type PasswordUserStoreOptions,
  type PasswordVerifier,
  passwordUserStore,
} from './passwords/password-user-store.js';
export { type Pbkdf2HasherOptions, pbkdf2Hasher } from './passwords/pbkdf2.js';
export type { IntrospectionOptions } from './protect/introspection.js';
export {
  defineOperations,
  type Operation,
  type OperationHandler,
  type OperationMethod,
  type OperationsHandler,
  type OperationsOptions,
  type OperationTable,
} from './protect/operations.js';
export {
  PROTECTED_RESOURCE_WELL_KNOWN,
  type ProtectedResource,
  type ProtectedResourceOptions,
  protectedResource,
  protectedResourceMetadata,
  protectedResourceMetadataUrl,
} from './protect/resource-metadata.js';
export {
  type ResourceServer,
  type ResourceServerOptions,
  resourceServer,
} from './protect/resource-server.js';
export type {
  AuthenticateOptions,
  AuthenticationResult,
  AuthScheme,
  Caller,
  SubjectKind,
} from './protect/types.js';
export type { PushedRevocationsOptions } from './revocation/revocation-mirror.js';
export type { RevokeGrantOptions, UserGrant } from './revocation/user-grants.js';
export type { RevokeUserOptions } from './revocation/user-revocation.js';
export type { UserSession } from './session/user-sessions.js';
export { memoryClientStore } from './storage/memory/clients.js';
export { memoryEngine, memoryStorage } from './storage/memory/engine.js';
export { withMemoryFallback } from './storage/memory/fallback.js';
export { type MemoryUser, type MemoryUserStoreOptions, memoryUserStore } from './storage/memory/users.js';
export type { InstanceStorage } from './storage/required-stores.js';
// The storage types an application names: what `storage` takes and the stores a host brings. The
// whole contract, for engine authors, is `@gatehousejs/core/engine`.
export type {
  AuthenticationAttributes,
  ClientRecord,
  ClientStore,
  GatehouseStorage,
  GrantType,
  RecordExtensions,
  StorageEngine,
  Subject,
  TokenEndpointAuthMethod,
  UserLookup,
  UserRecord,
  UserStore,
} from './storage/types.js';
export type { EpochMs, EpochSeconds, Milliseconds, Seconds } from './time.js';
export type { AccessTokenClaims, TokenFamily } from './tokens/access-token.js';
export type { ActClaim } from './tokens/act.js';
export {
  type ClaimsHook,
  type ClaimsRequest,
  type ClaimsTarget,
  MAX_ACCESS_TOKEN_CLAIMS_BYTES,
  RESERVED_CLAIMS,
} from './tokens/host-claims.js';
export type { KeySigner } from './tokens/key-signer.js';
export { generateKeys, type PrivateJwk, type SigningAlgorithm } from './tokens/keys.js';
export type { SigningKeyInfo, SigningKeys } from './tokens/rotation/signing-keys.js';
export { generateClientSecret, hashClientSecret, type RandomBytes } from './tokens/secrets.js';
export { defaultConsentPage } from './ui/consent-page.js';
export { defaultEndSessionPage } from './ui/end-session-page.js';
export { defaultErrorPage } from './ui/error-page.js';
export { escapeHtml } from './ui/escape.js';
export { defaultLoginPage } from './ui/login-page.js';
export { defaultLogoutPage } from './ui/logout-page.js';
export { BUILT_IN_MESSAGES, type LoginErrorCode } from './ui/messages.js';
export type {
  ConsentPageModel,
  ConsentPageRenderer,
  EndSessionPageModel,
  EndSessionPageRenderer,
  ErrorPageModel,
  ErrorPageRenderer,
  LoginPageModel,
  LoginPageRenderer,
  LogoutPageModel,
  LogoutPageRenderer,
  PageContext,
  PageHtml,
  PageTexts,
} from './ui/types.js';
