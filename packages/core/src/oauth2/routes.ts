import type { ResolvedOptions } from '../feature.js';
import type { Route } from '../http/router.js';
import { authorizationRoutes } from './authorize/routes.js';
import { introspectEndpoint } from './introspect.js';
import { jwksEndpoint } from './jwks.js';
import { ENDPOINTS, metadataRoute } from './metadata.js';
import { revokeEndpoint } from './revoke.js';
import { tokenEndpoint } from './token-endpoint.js';

/** The routes of the OAuth 2.0 server under `{base}/oauth2/v1/`. */
export function oauth2Routes(options: ResolvedOptions): Route[] {
  return [
    {
      path: ENDPOINTS.token,
      methods: { POST: tokenEndpoint(options.features.grants, options.dpop) },
      cors: true,
    },
    { path: ENDPOINTS.revocation, methods: { POST: revokeEndpoint }, cors: true },
    { path: ENDPOINTS.introspection, methods: { POST: introspectEndpoint } },
    { path: ENDPOINTS.jwks, methods: { GET: jwksEndpoint } },
    metadataRoute(options.features.discovery),
    ...authorizationRoutes(options),
  ];
}
