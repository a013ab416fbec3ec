import type { Route } from '../http/router.js';
import { PAGE_PATHS } from '../ui/paths.js';
import { authorizeEndpoint } from './authorize.js';
import { consentEndpoint } from './authorize-consent.js';
import { loginEndpoint } from './authorize-login.js';
import { ENDPOINTS } from './metadata.js';
import { userinfoEndpoint } from './userinfo.js';

/**
 * The user-facing half of the authorization code flow: the authorization endpoint, the login and
 * consent form posts it leads to, and userinfo (callable cross-origin by allowed origins).
 */
export function authorizationRoutes(): Route[] {
  return [
    {
      path: ENDPOINTS.authorization,
      methods: { GET: authorizeEndpoint, POST: authorizeEndpoint },
      unsafeGet: true,
    },
    { path: PAGE_PATHS.login, methods: { POST: loginEndpoint } },
    { path: PAGE_PATHS.consent, methods: { POST: consentEndpoint } },
    { path: ENDPOINTS.userinfo, methods: { GET: userinfoEndpoint }, cors: true },
  ];
}
