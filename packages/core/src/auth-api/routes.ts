import type { Route } from '../http/router.js';
import type { ResolvedOptions } from '../resolve-options.js';
import { AUTH_API_ENDPOINTS } from './endpoints.js';
import { authApiIntrospectEndpoint } from './introspect.js';
import { authApiRevokeEndpoint } from './revoke.js';
import { authApiTokenEndpoint } from './token-endpoint.js';

/** The routes of the Auth API under `{base}/auth/v1/`; none when `authApi.enabled` is `false`. */
export function authApiRoutes(options: Pick<ResolvedOptions, 'authApi'>): Route[] {
  if (!options.authApi.enabled) return [];
  return [
    { path: AUTH_API_ENDPOINTS.token, methods: { POST: authApiTokenEndpoint } },
    { path: AUTH_API_ENDPOINTS.introspection, methods: { POST: authApiIntrospectEndpoint } },
    { path: AUTH_API_ENDPOINTS.revocation, methods: { POST: authApiRevokeEndpoint } },
  ];
}
