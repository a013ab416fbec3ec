import type { Route } from '../../http/router.js';
import { ENDPOINTS } from '../metadata.js';
import { authorizeEndpoint } from './endpoint.js';
import type { AuthorizationFlow } from './flow.js';

/**
 * The authorization endpoint (its GET issues codes, so HEAD is not answered by it). The pages it
 * sends the user to are interactions (`oauth2/interaction/routes.ts`).
 */
export function authorizationRoutes(flow: AuthorizationFlow): Route[] {
  const authorize = authorizeEndpoint(flow);
  return [
    {
      path: ENDPOINTS.authorization,
      methods: { GET: authorize, POST: authorize },
      unsafeGet: true,
    },
  ];
}
