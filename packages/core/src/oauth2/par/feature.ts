import type { Feature } from '../../feature.js';
import { ENDPOINTS } from '../metadata.js';
import { pushedAuthorizationEndpoint } from './par-endpoint.js';
import { pushedRequestSettings } from './settings.js';

export { pushRequirement } from './settings.js';

/**
 * Pushed authorization requests (RFC 9126) as a feature: its options
 * (`pushedAuthorizationRequests`), the pushed authorization request endpoint (answering CORS like
 * the token endpoint), and its members of the discovery documents (§5). The endpoint closes over
 * its settings. What the authorization endpoint needs of it stays outside: whether every client
 * must push (the instance settings' `requirePushedRequests`, validated by {@link pushRequirement} at
 * the composition root) and resolving a `request_uri` (`pushed-requests.ts`).
 */
export const pushedAuthorizationRequestsFeature: Feature = {
  name: 'pushed authorization requests',
  setup(options, shared) {
    const settings = pushedRequestSettings(options.pushedAuthorizationRequests);
    return {
      routes: [
        {
          path: ENDPOINTS.pushedAuthorizationRequest,
          methods: { POST: pushedAuthorizationEndpoint(settings, shared.dpop, shared) },
          cors: true,
        },
      ],
      metadata: (endpoint) => ({
        pushed_authorization_request_endpoint: endpoint(ENDPOINTS.pushedAuthorizationRequest),
        require_pushed_authorization_requests: shared.requirePushedRequests,
      }),
    };
  },
};
