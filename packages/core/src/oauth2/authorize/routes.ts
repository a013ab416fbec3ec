import type { Route } from '../../http/router.js';
import { PAGE_PATHS } from '../../ui/paths.js';
import { ENDPOINTS } from '../metadata.js';
import { consentEndpoint } from './consent.js';
import { authorizeEndpoint } from './endpoint.js';
import { loginEndpoint } from './login.js';

/**
 * The user-facing half of the authorization code flow: the authorization endpoint (its GET issues
 * codes, so HEAD is not answered by it) and the built-in login and consent form posts it leads to,
 * unless the host signs users in itself (`interactions.url`: those pages are never shown, and their
 * routes answer 404).
 */
export function authorizationRoutes(builtInPages = true): Route[] {
  return [
    {
      path: ENDPOINTS.authorization,
      methods: { GET: authorizeEndpoint, POST: authorizeEndpoint },
      unsafeGet: true,
    },
    ...(builtInPages
      ? [
          { path: PAGE_PATHS.login, methods: { POST: loginEndpoint } },
          { path: PAGE_PATHS.consent, methods: { POST: consentEndpoint } },
        ]
      : []),
  ];
}
