import type { Route } from '../http/router.js';
import { AUTH_API_ENDPOINTS } from './endpoints.js';
import { authApiIntrospectEndpoint } from './introspect.js';
import { authApiRevokeEndpoint } from './revoke.js';
import type { AuthApiSettings } from './settings.js';
import { authApiTokenEndpoint } from './token-endpoint.js';

/** The routes of the Auth API under `{base}/auth/v1/`; none when `authApi.enabled` is `false`. */
export function authApiRoutes(settings: AuthApiSettings): Route[] {
  if (!settings.enabled) return [];
  return [
    { path: AUTH_API_ENDPOINTS.token, methods: { POST: authApiTokenEndpoint(settings) } },
    { path: AUTH_API_ENDPOINTS.introspection, methods: { POST: authApiIntrospectEndpoint } },
    { path: AUTH_API_ENDPOINTS.revocation, methods: { POST: authApiRevokeEndpoint } },
  ];
}
