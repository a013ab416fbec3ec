import type { OfferedAuthMethod } from '../../records/client-record.js';
import type { ClientRecord, TokenEndpointAuthMethod } from '../../storage/types.js';
import { clientSecretBasic } from './client-secret-basic.js';
import { clientSecretPost } from './client-secret-post.js';
import type { ClientAuthMethod } from './method.js';
import { noClientAuthentication } from './none.js';
import { ASSERTION_SIGNING_ALGORITHMS, privateKeyJwt } from './private-key-jwt.js';

/**
 * The client authentication methods this server offers, keyed by their registered name. A new
 * method is one entry here; the metadata's `*_auth_methods_supported` lists follow from this table.
 * `client_secret_jwt` (an HMAC keyed with the client secret) is not offered: Gatehouse stores only
 * a hash of each secret, never the secret an HMAC check would need.
 */
export const CLIENT_AUTH_METHODS: Readonly<Partial<Record<TokenEndpointAuthMethod, ClientAuthMethod>>> = {
  client_secret_basic: clientSecretBasic,
  client_secret_post: clientSecretPost,
  private_key_jwt: privateKeyJwt as ClientAuthMethod,
  none: noClientAuthentication,
} satisfies Record<OfferedAuthMethod, ClientAuthMethod>;

/** The table's entries, in its order. */
export const clientAuthMethods: readonly ClientAuthMethod[] = Object.values(CLIENT_AUTH_METHODS);

/**
 * Body parameters that carry client credentials in some registered method (RFC 6749 §2.3.1,
 * RFC 7523 §2.2). A request sending one that no method of the table reads is refused (400
 * `invalid_request`) rather than having a credential silently ignored.
 */
export const CREDENTIAL_BODY_PARAMETERS: readonly string[] = [
  'client_secret',
  'client_assertion',
  'client_assertion_type',
];

/**
 * The method a client is registered for: its `tokenEndpointAuthMethod`, by default
 * `client_secret_basic` for confidential and `none` for public clients. `undefined` for a
 * contradictory registration (a confidential client without credentials, a public one with), which
 * can then authenticate with no method.
 */
export function registeredAuthMethod(client: ClientRecord): TokenEndpointAuthMethod | undefined {
  const method =
    client.tokenEndpointAuthMethod ?? (client.type === 'public' ? 'none' : 'client_secret_basic');
  return (method === 'none') === (client.type === 'public') ? method : undefined;
}

/** `token_endpoint_auth_methods_supported` and `revocation_endpoint_auth_methods_supported`. */
export function supportedAuthMethods(): string[] {
  return clientAuthMethods.map((method) => method.name);
}

/** `introspection_endpoint_auth_methods_supported`: the methods that prove the client's identity. */
export function identityProvingAuthMethods(): string[] {
  return clientAuthMethods.filter((method) => method.provesIdentity).map((method) => method.name);
}

/**
 * `token_endpoint_auth_signing_alg_values_supported` (RFC 8414 §2) and its revocation and
 * introspection equivalents: the algorithms `private_key_jwt` assertions may use.
 */
export function assertionSigningAlgorithms(): string[] {
  return [...ASSERTION_SIGNING_ALGORITHMS];
}
