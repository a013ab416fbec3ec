import type { Context, TokenPolicy } from '../context.js';
import { jsonResponse } from '../http/responses.js';
import type { Route } from '../http/router.js';
import {
  assertionSigningAlgorithms,
  identityProvingAuthMethods,
  supportedAuthMethods,
} from './client-auth/methods.js';
import { TOKEN_ENDPOINT_PATH } from './token-endpoint-path.js';

/** Endpoints relative to the issuer. */
export const ENDPOINTS = {
  authorization: '/oauth2/v1/authorize',
  token: TOKEN_ENDPOINT_PATH,
  revocation: '/oauth2/v1/revoke',
  introspection: '/oauth2/v1/introspect',
  userinfo: '/oauth2/v1/userinfo',
  jwks: '/oauth2/v1/keys',
  /** RFC 7591 §3 (only when `dynamicRegistration` is on); `{registration}/{client_id}` is RFC 7592's. */
  registration: '/oauth2/v1/register',
  /** RFC 9126 §2: the pushed authorization request endpoint. */
  pushedAuthorizationRequest: '/oauth2/v1/par',
  /** RFC 8628 §3.1: the device authorization endpoint. */
  deviceAuthorization: '/oauth2/v1/device_authorization',
  /** CIBA Core 1.0 §7: the backchannel authentication endpoint. */
  backchannelAuthentication: '/oauth2/v1/backchannel_authentication',
} as const;

/**
 * What the instance's features add to the discovery documents (`feature.ts`
 * `DiscoveryContributions`): the grant types the token endpoint serves and their own members.
 */
export interface FeatureDiscovery {
  readonly grantTypes: readonly string[];
  readonly members: (endpoint: (path: string) => string) => Readonly<Record<string, unknown>>;
}

/** The RFC 8414 §2 authorization server metadata of an instance. */
export function authorizationServerMetadata(
  ctx: Pick<Context, 'issuer' | 'profile'> & {
    readonly tokens: Pick<TokenPolicy, 'scopes' | 'resources'>;
  },
  features: FeatureDiscovery,
): Record<string, unknown> {
  const at = (path: string) => ctx.issuer + path;
  // FAPI 2.0 (securityProfile): private_key_jwt, and public clients held to DPoP unless only
  // confidential clients are served ('fapi2-strict').
  const clientAuth = supportedAuthMethods().filter(
    (method) =>
      ctx.profile.securityProfile !== 'fapi2' ||
      method === 'private_key_jwt' ||
      (method === 'none' && ctx.profile.confidentialClientsOnly !== true),
  );
  return {
    issuer: ctx.issuer,
    authorization_endpoint: at(ENDPOINTS.authorization),
    token_endpoint: at(ENDPOINTS.token),
    revocation_endpoint: at(ENDPOINTS.revocation),
    introspection_endpoint: at(ENDPOINTS.introspection),
    userinfo_endpoint: at(ENDPOINTS.userinfo),
    jwks_uri: at(ENDPOINTS.jwks),
    ...(ctx.tokens.scopes ? { scopes_supported: [...ctx.tokens.scopes] } : {}),
    response_types_supported: ['code'],
    response_modes_supported: ['query'],
    grant_types_supported: features.grantTypes,
    // The features' own members: RFC 8628 §4 `device_authorization_endpoint`, RFC 9126 §5
    // `pushed_authorization_request_endpoint`, RFC 8414 §2 `registration_endpoint` (when dynamic
    // registration is on), …
    ...features.members(at),
    token_endpoint_auth_methods_supported: clientAuth,
    token_endpoint_auth_signing_alg_values_supported: assertionSigningAlgorithms(),
    revocation_endpoint_auth_methods_supported: clientAuth,
    revocation_endpoint_auth_signing_alg_values_supported: assertionSigningAlgorithms(),
    introspection_endpoint_auth_methods_supported: identityProvingAuthMethods(),
    introspection_endpoint_auth_signing_alg_values_supported: assertionSigningAlgorithms(),
    code_challenge_methods_supported: ['S256'],
    authorization_response_iss_parameter_supported: true,
    // RFC 9728 §4: the resources tokens of this server are for (RFC 8707 `resource` values).
    protected_resources: [...ctx.tokens.resources],
  };
}

/**
 * The RFC 8414 metadata route: at `{issuer}/.well-known/oauth-authorization-server` and, for an
 * issuer with a path, at `/.well-known/oauth-authorization-server{path}`, where RFC 8414 §3 puts
 * it (the well-known segment inserted between host and path). Another well-known document (OpenID
 * Connect discovery, RFC 9728 resource metadata) is one more route of this shape.
 */
export function metadataRoute(features: FeatureDiscovery): Route {
  return {
    path: '/.well-known/oauth-authorization-server',
    aliases: ['/.well-known/oauth-authorization-server{mount}'],
    methods: {
      GET: async (_request, ctx: Pick<Context, 'issuer' | 'tokens' | 'profile'>) =>
        jsonResponse(authorizationServerMetadata(ctx, features), {
          headers: { 'Cache-Control': 'public, max-age=300' },
        }),
    },
  };
}
