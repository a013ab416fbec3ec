/**
 * `@gatehousejs/core/protect`: for the code that serves protected operations and for resource servers
 * (an API in another service, an MCP server) that check tokens a Gatehouse issued. Operations
 * (`defineOperations`, bounded body reading with `readBodyText`), the resource server
 * (`resourceServer`), protected-resource metadata (RFC 9728), and what a check gives: the
 * {@link Caller} and the options of `authenticate`. A resource server imports `resourceServer` from here;
 * the key-value store it may share is a type of `/engine`.
 * Runtime-neutral, like the main entry.
 * @packageDocumentation
 */
export type { Awaitable } from '../awaitable.js';
export { readBodyText } from '../http/body.js';
export type { AuthorizationDetailType, DpopOptions } from '../options.js';
export type { EpochSeconds } from '../time.js';
export type { TokenFamily } from '../tokens/access-token-claims.js';
export type { ActClaim } from '../tokens/act.js';
export type { AuthorizationDetail } from '../tokens/authorization-details.js';
export { authorizationDetailsOf } from './authorization-details.js';
export type { IntrospectionOptions } from './introspection.js';
export {
  defineOperations,
  type Operation,
  type OperationHandler,
  type OperationMethod,
  type OperationsHandler,
  type OperationsOptions,
  type OperationTable,
} from './operations.js';
export {
  type ProtectedResource,
  type ProtectedResourceOptions,
  protectedResource,
  protectedResourceMetadata,
  protectedResourceMetadataUrl,
} from './resource-metadata.js';
export { type ResourceServer, type ResourceServerOptions, resourceServer } from './resource-server.js';
export type {
  AuthenticateOptions,
  AuthenticationResult,
  AuthScheme,
  Caller,
  SubjectKind,
} from './types.js';
