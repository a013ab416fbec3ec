import { ConfigurationError } from '../errors.js';
import type { Feature } from '../feature.js';
import { PAGE_PATHS } from '../ui/paths.js';
import { connectedAppsPageEndpoint, revokeAppEndpoint } from './apps-page.js';

export { type ConnectedApp, connectedApps, revokeApp } from './connected-apps.js';

/**
 * Connected apps for end users as a feature (`connectedApps` option, on by default): the page at
 * `{base}/account/apps` where a signed-in user sees which applications hold access and revokes one.
 * `false` takes the page away; `gatehouse.connectedApps` / `gatehouse.revokeApp` (for a host's own
 * page) stay, since they are the host's calls, not a route anyone can reach.
 */
export const connectedAppsFeature: Feature = {
  name: 'connected apps',
  setup(options, shared) {
    const enabled = options.connectedApps;
    if (enabled !== undefined && typeof enabled !== 'boolean')
      throw new ConfigurationError('connectedApps: expected true or false.', {
        code: 'ERR_CONFIG_INVALID_OPTION',
        option: 'connectedApps',
      });
    if (enabled === false) return {};
    return {
      routes: [
        {
          path: PAGE_PATHS.connectedApps,
          methods: { GET: connectedAppsPageEndpoint(shared), POST: revokeAppEndpoint(shared) },
        },
      ],
    };
  },
};
