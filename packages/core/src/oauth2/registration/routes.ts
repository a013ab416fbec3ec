import type { Route } from '../../http/router.js';
import type { CibaDeliveryMode } from '../../records/backchannel-client.js';
import { ENDPOINTS } from '../metadata.js';
import { deleteRegistrationEndpoint, readRegistrationEndpoint } from './client-configuration-endpoint.js';
import { registerEndpoint } from './register-endpoint.js';
import type { DynamicRegistrationSettings } from './settings.js';

/**
 * The dynamic registration routes, when `dynamicRegistration` is on: RFC 7591's registration
 * endpoint (browser apps may register themselves, so it answers CORS for allowed origins) and
 * RFC 7592's client configuration endpoint (read and delete; updates are not offered). With
 * `backchannelLogout`, registrations may name a `backchannel_logout_uri` by its rules.
 */
export function registrationRoutes(
  settings: DynamicRegistrationSettings | undefined,
  backchannelLogout?: { readonly allowLoopback: boolean },
  backchannelModes?: readonly CibaDeliveryMode[],
): Route[] {
  if (!settings) return [];
  return [
    {
      path: ENDPOINTS.registration,
      methods: { POST: registerEndpoint(settings, backchannelLogout, backchannelModes) },
      cors: true,
    },
    {
      path: `${ENDPOINTS.registration}/:client_id`,
      methods: { GET: readRegistrationEndpoint, DELETE: deleteRegistrationEndpoint },
    },
  ];
}
