/**
 * `@gatehousejs/client`: the client helper of Gatehouse for browsers and server-side
 * JavaScript. Code flow with state and PKCE, token storage, automatic single-flight refresh, the
 * auto/oauth/session/none request modes, revocation, introspection, Auth API password login and
 * session checks. Built on oauth4webapi; no Node.js built-ins.
 * @packageDocumentation
 */
export type { ClientRequestInit } from './authorized-fetch.js';
export { createClient, type GatehouseClient, type SignOutOptions } from './client.js';
export type { ClientCredentialsOptions } from './client-credentials.js';
export type { AuthorizationUrlOptions } from './code-flow.js';
export type {
  DeviceAuthorization,
  DeviceAuthorizationOptions,
  DeviceWaitOptions,
} from './device-flow.js';
export type { LockManagerLike } from './environment.js';
export {
  GatehouseClientError,
  type GatehouseClientErrorCode,
  type GatehouseClientErrorOptions,
  isGatehouseClientError,
} from './errors.js';
export type { AuthMode, AutoRefreshOptions, ClientOptions, FetchFunction } from './options.js';
export type { SessionUser } from './session.js';
export {
  type KeyValueStorage,
  localStorageTokenStore,
  memoryTokenStore,
  parseTokenSet,
  type TokenSet,
  type TokenStore,
} from './token-store.js';
export {
  type AuthorizationTransaction,
  memoryTransactionStore,
  sessionStorageTransactionStore,
  type TransactionStore,
} from './transaction-store.js';
