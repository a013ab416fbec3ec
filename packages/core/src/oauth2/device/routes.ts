import type { Route } from '../../http/router.js';
import { PAGE_PATHS } from '../../ui/paths.js';
import type { AuthorizationFlow } from '../authorize/flow.js';
import { ENDPOINTS } from '../metadata.js';
import { deviceAuthorizationEndpoint } from './endpoint.js';
import type { DeviceAuthorizationSettings } from './settings.js';
import {
  deviceCodeEntry,
  deviceConfirmPageEndpoint,
  deviceDecisionEndpoint,
  deviceVerificationPage,
} from './verification.js';

/**
 * The device authorization grant (RFC 8628): the device authorization endpoint, which devices call
 * (cross-origin too, like the token endpoint), and the verification page's routes, which people's
 * browsers use. The grant's token request is one of the token endpoint's grants (`feature.ts`).
 */
export function deviceRoutes(settings: DeviceAuthorizationSettings, flow: AuthorizationFlow): Route[] {
  return [
    {
      path: ENDPOINTS.deviceAuthorization,
      methods: { POST: deviceAuthorizationEndpoint(settings) },
      cors: true,
    },
    {
      path: PAGE_PATHS.device,
      methods: { GET: deviceVerificationPage, POST: deviceCodeEntry(settings, flow) },
    },
    {
      path: PAGE_PATHS.deviceConfirm,
      methods: {
        GET: deviceConfirmPageEndpoint(settings, flow),
        POST: deviceDecisionEndpoint(settings, flow),
      },
    },
  ];
}
