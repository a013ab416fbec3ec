import type { Context } from '../context.js';
import type { DpopChecks } from '../dpop/proof.js';
import { jsonResponse } from '../http/responses.js';
import type { Route } from '../http/router.js';
import { ENDPOINTS, type FeatureDiscovery } from '../oauth2/metadata.js';
import type { SessionLifecycle } from '../session/lifecycle.js';
import { OIDC_ENDPOINTS, OPENID_CONFIGURATION_PATH, openIdProviderMetadata } from './discovery.js';
import { endSessionEndpoint } from './end-session-endpoint.js';
import { userinfoEndpoint } from './userinfo.js';

/**
 * The OpenID Provider's own routes: the UserInfo endpoint (Core §5.3), the discovery document at `{issuer}/.well-known/openid-configuration`
 * (Discovery §4, appended to the issuer; also at `/.well-known/openid-configuration{path}`) and the
 * end-session endpoint, whose GET ends a session
 * (so HEAD is not answered by it).
 */
export function oidcRoutes(
  features: FeatureDiscovery,
  dpop: DpopChecks,
  sessions: SessionLifecycle,
): Route[] {
  const userinfo = userinfoEndpoint(dpop);
  const endSession = endSessionEndpoint(sessions);
  return [
    { path: ENDPOINTS.userinfo, methods: { GET: userinfo, POST: userinfo }, cors: true },
    {
      path: OPENID_CONFIGURATION_PATH,
      // The path-inserted form too, as RFC 8414 §3 places its document (relying parties built on
      // RFC 8414 try it).
      aliases: [`${OPENID_CONFIGURATION_PATH}{mount}`],
      methods: {
        GET: async (_request, ctx: Pick<Context, 'issuer' | 'keys' | 'tokens' | 'profile'>) =>
          jsonResponse(openIdProviderMetadata(ctx, features), {
            headers: { 'Cache-Control': 'public, max-age=300' },
          }),
      },
      // Single-page relying parties read it from the browser.
      cors: true,
    },
    {
      path: OIDC_ENDPOINTS.endSession,
      methods: { GET: endSession, POST: endSession },
      unsafeGet: true,
    },
  ];
}
