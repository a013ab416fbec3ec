import type { TokenPolicy } from '../context.js';
import { ConfigurationError } from '../errors.js';
import { lifetime } from '../option-values.js';
import type { GatehouseOptions } from '../options.js';
import { VerifiedTokenCache } from '../tokens/verified-token-cache.js';
import { resourceUriProblem } from './resource-indicators.js';
import { resolveTrustedIssuers } from './trusted-issuers.js';

/** What the token policy is built from, besides the options. */
export interface TokenPolicySources {
  readonly issuer: string;
  /** Under the FAPI 2.0 profile (`securityProfile`). */
  readonly fapi2: boolean;
  readonly verified: VerifiedTokenCache | undefined;
  readonly revocationMirror: TokenPolicy['revocationMirror'];
  /** Lifetimes of what other parts issue (Auth API tokens, sessions), for `longestLifetime`. */
  readonly otherLifetimes: readonly number[];
}

/** The instance's scopes (`scopes`), and `defaultScope` checked against them. */
export function scopePolicy(options: GatehouseOptions): Pick<TokenPolicy, 'scopes' | 'defaultScope'> {
  const scopes = options.scopes ? new Set(options.scopes) : undefined;
  const defaultScope = options.defaultScope ?? '';
  for (const scope of defaultScope.split(' ').filter(Boolean)) {
    if (scopes && !scopes.has(scope))
      throw new ConfigurationError(`defaultScope: "${scope}" is not in scopes.`, {
        code: 'ERR_CONFIG_CONFLICTING_OPTIONS',
        option: 'defaultScope',
      });
  }
  return { scopes, defaultScope };
}

/** The access token lifetime (`accessTokenTtl`, at most a day). */
export function accessTokenLifetime(options: GatehouseOptions): number {
  return lifetime('accessTokenTtl', options.accessTokenTtl, 3600, 86_400);
}

/**
 * What tokens the instance issues and how it accepts them (`audience`, `resources`, lifetimes,
 * `rotateRefreshTokens`, `requirePkce`, `claims`, `trustedIssuers`), checked.
 */
export function tokenPolicy(options: GatehouseOptions, sources: TokenPolicySources): TokenPolicy {
  const { issuer, fapi2 } = sources;
  const requirePkce = options.requirePkce ?? (fapi2 ? 'all' : 'public');
  if (requirePkce !== 'public' && requirePkce !== 'all')
    throw new ConfigurationError('requirePkce: expected "public" or "all".', { option: 'requirePkce' });
  if (options.resources !== undefined && !Array.isArray(options.resources))
    throw new ConfigurationError('resources: expected an array of absolute URIs.', { option: 'resources' });
  for (const resource of options.resources ?? []) {
    const problem = typeof resource === 'string' ? resourceUriProblem(resource) : 'is not a string';
    if (problem)
      throw new ConfigurationError(`resources: "${String(resource)}" ${problem} (RFC 8707 section 2).`, {
        option: 'resources',
      });
  }
  const audience = options.audience ?? `${issuer}/api/v1`;
  const accessTokenTtl = accessTokenLifetime(options);
  const refreshTokenTtl = lifetime('refreshTokenTtl', options.refreshTokenTtl, 30 * 86_400);
  // FAPI 2.0 §5.3.2.1: codes live at most 60 seconds.
  const authorizationCodeTtl = lifetime(
    'authorizationCodeTtl',
    options.authorizationCodeTtl,
    60,
    fapi2 ? 60 : 600,
  );
  return {
    ...scopePolicy(options),
    audience,
    audienceList: Object.freeze([audience]),
    resources: new Set([audience, ...(options.resources ?? [])]),
    accessTokenTtl,
    refreshTokenTtl,
    authorizationCodeTtl,
    // FAPI 2.0 §5.3.2.1: no refresh token rotation (the tokens are sender-constrained instead).
    rotateRefreshTokens: options.rotateRefreshTokens ?? !fapi2,
    requirePkce,
    claims: claimsHook(options.claims),
    trustedIssuers: resolveTrustedIssuers(options.trustedIssuers, issuer),
    verified: sources.verified ?? new VerifiedTokenCache(),
    revocationMirror: sources.revocationMirror,
    longestLifetime: Math.max(
      accessTokenTtl,
      refreshTokenTtl,
      authorizationCodeTtl,
      ...sources.otherLifetimes,
    ),
  };
}
/** The `claims` option: a function, or nothing. */
function claimsHook(hook: GatehouseOptions['claims']): GatehouseOptions['claims'] {
  if (hook !== undefined && typeof hook !== 'function')
    throw new ConfigurationError(
      'claims: expected a function ({ target, sub, clientId, scopes, resources, user }) => claims.',
      { code: 'ERR_CONFIG_INVALID_OPTION', option: 'claims' },
    );
  return hook;
}
