import type { Context, TokenPolicy } from '../context.js';
import { authorizationServerMetadata, type FeatureDiscovery } from '../oauth2/metadata.js';
import { SIGNING_ALGORITHMS, type SigningAlgorithm } from '../tokens/keys.js';
import { SCOPE_CLAIMS, SUPPORTED_CLAIMS } from './standard-claims.js';

/** Endpoints of the OpenID Provider that OAuth 2.0 alone does not have, relative to the issuer. */
export const OIDC_ENDPOINTS = {
  /** RP-Initiated Logout 1.0 §2: `end_session_endpoint`. */
  endSession: '/oauth2/v1/end-session',
} as const;

/** Where the discovery document lives, relative to the issuer (OpenID Connect Discovery 1.0 §4). */
export const OPENID_CONFIGURATION_PATH = '/.well-known/openid-configuration';

/** The `prompt` values the authorization endpoint supports (OpenID Connect Core §3.1.2.1). */
export const SUPPORTED_PROMPTS = ['none', 'login', 'consent'] as const;

/**
 * The algorithms ID tokens can be signed with: those the instance holds a key of, RS256 first
 * (the default, Core §3.1.3.7).
 */
export function idTokenSigningAlgorithms(ctx: Pick<Context, 'keys'>): SigningAlgorithm[] {
  return SIGNING_ALGORITHMS.filter((algorithm) => ctx.keys.signers.has(algorithm));
}

/**
 * The OpenID Provider metadata (OpenID Connect Discovery 1.0 §3): the RFC 8414 metadata of the
 * instance (same issuer, same endpoints, so the two documents never disagree), with the fields
 * Discovery requires and recommends, the RP-Initiated Logout 1.0 `end_session_endpoint`, and
 * `scopes_supported` always listing `openid`. `issuer` is byte-equal to the `iss` of every token.
 */
export function openIdProviderMetadata(
  ctx: Pick<Context, 'issuer' | 'keys' | 'profile'> & {
    readonly tokens: Pick<TokenPolicy, 'scopes' | 'resources'>;
  },
  features: FeatureDiscovery,
): Record<string, unknown> {
  const oauth = authorizationServerMetadata(ctx, features);
  // An instance that accepts any scope lists the ones of OpenID Connect (Core §5.4, §11).
  const scopes = ctx.tokens.scopes
    ? [...new Set(['openid', ...ctx.tokens.scopes])]
    : ['openid', ...Object.keys(SCOPE_CLAIMS), 'offline_access'];
  return {
    // Back-channel logout says otherwise when it is on (its feature's members, in `oauth`).
    backchannel_logout_supported: false,
    ...oauth,
    scopes_supported: scopes,
    end_session_endpoint: ctx.issuer + OIDC_ENDPOINTS.endSession,
    subject_types_supported: ['public'],
    id_token_signing_alg_values_supported: idTokenSigningAlgorithms(ctx),
    claims_supported: [
      'iss',
      'aud',
      'exp',
      'iat',
      'auth_time',
      // Core §2: what the sign-in reached and how (the built-in login page: amr ["pwd"]; the host's
      // sign-in: whatever its result says), in ID tokens when known.
      'acr',
      'amr',
      'nonce',
      'at_hash',
      'sid',
      ...SUPPORTED_CLAIMS,
    ],
    claim_types_supported: ['normal'],
    claims_parameter_supported: false,
    // Request objects by value (RFC 9101) are the request objects feature's (`request_parameter_supported`
    // among its members above); by reference, only pushed requests' own `request_uri` (RFC 9126).
    request_parameter_supported: oauth.request_parameter_supported === true,
    request_uri_parameter_supported: false,
    prompt_values_supported: [...SUPPORTED_PROMPTS],
    frontchannel_logout_supported: false,
  };
}
