/**
 * `@gatehousejs/core`: an OAuth 2.0 authorization server, session login and bearer protection as
 * functions of Web `Request` → `Response`. Runtime-neutral: no Node.js built-ins in this entry.
 * @packageDocumentation
 */

export type { AuditRecord, AuditSink } from './audit/audit-record.js';
export { jsonLinesAuditSink } from './audit/json-lines-sink.js';
export { AUTH_API_ENDPOINTS } from './auth-api/endpoints.js';
export type { Context } from './context.js';
export {
  type ConfigurationErrorCode,
  ERROR_CODES,
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
export { clientAddressOf, setClientAddress } from './http/client-address.js';
export {
  type OutboundFetch,
  OutboundFetchError,
  type OutboundRequest,
  refusedUrlReason,
  runtimeFetch,
} from './http/guarded-fetch.js';
export { type AddressPolicy, refusedAddressReason } from './http/ip-address.js';
export type { Handler, Route } from './http/router.js';
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
export { DEVICE_CODE_GRANT } from './oauth2/device/endpoint.js';
export { DEVICE_AUTHORIZATION_DEFAULTS, type DeviceAuthorizationSettings } from './oauth2/device/settings.js';
export { JWT_BEARER_GRANT } from './oauth2/jwt-assertion.js';
export { authorizationServerMetadata, ENDPOINTS } from './oauth2/metadata.js';
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
  CorsOptions,
  DeviceAuthorizationOptions,
  DynamicRegistrationOptions,
  GatehouseOptions,
  InteractionOptions,
  PageSourceOptions,
  PasswordCheckOptions,
  RateLimitOptions,
  SessionOptions,
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
export {
  decodeRevocationMessage,
  type RevocationFanout,
  type RevocationMessage,
  revocationEvent,
  revocationFanout,
  revocationProbeMessage,
} from './revocation/revocation-channel.js';
export type { PushedRevocationsOptions } from './revocation/revocation-mirror.js';
export type { RevokeGrantOptions, UserGrant } from './revocation/user-grants.js';
export type { RevokeUserOptions } from './revocation/user-revocation.js';
export type { UserSession } from './session/user-sessions.js';
export { checkInstanceId, DEFAULT_INSTANCE_ID } from './storage/instance-id.js';
export { kvConsentStore } from './storage/kv/consents.js';
export { STATE_KEYS } from './storage/kv/keys.js';
export { kvRateLimitStore } from './storage/kv/rate-limits.js';
export { type KvReplayStoreOptions, kvReplayStore } from './storage/kv/replay.js';
export { kvSessionStore } from './storage/kv/sessions.js';
export type {
  ConsentStore,
  RateLimitStore,
  ReplayStore,
  SessionStore,
} from './storage/kv/state-stores.js';
export { type KeyValueStateStores, type StateStoresOptions, stateStores } from './storage/kv/stores.js';
export type { Clearable } from './storage/memory/clearable.js';
export { type MemoryClientRegistryOptions, memoryClientRegistry } from './storage/memory/client-registry.js';
export { memoryClientStore } from './storage/memory/clients.js';
export { memoryEngine, memoryStorage } from './storage/memory/engine.js';
export { withMemoryFallback } from './storage/memory/fallback.js';
export { memoryGrantStore } from './storage/memory/grants.js';
export { type MemoryKeyValueStoreOptions, memoryKeyValueStore } from './storage/memory/key-value.js';
export { type MemoryUser, type MemoryUserStoreOptions, memoryUserStore } from './storage/memory/users.js';
export type { InstanceStorage } from './storage/required-stores.js';
export { isStoreFull, StoreFullError } from './storage/store-full.js';
export type * from './storage/types.js';
export {
  addSeconds,
  type EpochMs,
  type EpochSeconds,
  fromEpochSeconds,
  type Milliseconds,
  type Seconds,
  secondsToMs,
  secondsUntil,
  toEpochSeconds,
  wholeExpiry,
  wholeInstant,
} from './time.js';
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
export { generateClientSecret, hashClientSecret, hashSecret } from './tokens/secrets.js';
export { clientSubject, subjectId, userSubject } from './tokens/subject.js';
export { defaultConsentPage } from './ui/consent-page.js';
export { defaultErrorPage } from './ui/error-page.js';
export { escapeHtml } from './ui/escape.js';
export { defaultLoginPage } from './ui/login-page.js';
export { defaultLogoutPage } from './ui/logout-page.js';
export { BUILT_IN_MESSAGES, type LoginErrorCode } from './ui/messages.js';
export type {
  ConsentPageModel,
  ConsentPageRenderer,
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
