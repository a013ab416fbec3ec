import type { ResolvedOptions } from '../feature.js';
import type { Route } from '../http/router.js';
import { PAGE_PATHS } from '../ui/paths.js';
import { logoutEndpoint, logoutPageEndpoint } from './logout.js';

/** The session routes under `{base}/`: logout (login is a step of the authorization request). */
export function sessionRoutes(options: ResolvedOptions): Route[] {
  return [
    {
      path: PAGE_PATHS.logout,
      methods: { GET: logoutPageEndpoint, POST: logoutEndpoint(options.sessions) },
    },
  ];
}
