import type { Context } from '../../context.js';
import type { Feature } from '../../feature.js';
import { ENDPOINTS } from '../metadata.js';
import { DEVICE_CODE_GRANT } from './endpoint.js';
import { deviceCodeGrant } from './grant.js';
import { deviceRoutes } from './routes.js';
import { deviceAuthorizationSettings } from './settings.js';

export { DEVICE_CODE_GRANT } from './endpoint.js';
export { DEVICE_AUTHORIZATION_DEFAULTS, type DeviceAuthorizationSettings } from './settings.js';

/**
 * The device authorization grant (RFC 8628) as a feature: its options (`deviceAuthorization`),
 * the device authorization endpoint and the verification pages, the device code grant of the token
 * endpoint, and `device_authorization_endpoint` in the discovery documents (§4). Every handler
 * closes over the settings it was built with.
 */
export const deviceAuthorizationFeature: Feature = {
  name: 'device authorization',
  setup(options, shared) {
    const settings = deviceAuthorizationSettings(options.deviceAuthorization);
    return {
      // Its sign-in is an interaction of the authorization flow (`interactions` settings).
      routes: deviceRoutes(settings, shared),
      grants: {
        [DEVICE_CODE_GRANT]: (
          ctx: Pick<
            Context,
            'issuer' | 'clock' | 'randomBytes' | 'emit' | 'logger' | 'storage' | 'users' | 'keys' | 'tokens'
          >,
          params,
          client,
        ) => deviceCodeGrant(ctx, settings, params, client),
      },
      metadata: (endpoint) => ({ device_authorization_endpoint: endpoint(ENDPOINTS.deviceAuthorization) }),
    };
  },
};
