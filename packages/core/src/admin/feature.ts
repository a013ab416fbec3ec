import type { Feature } from '../feature.js';
import { hostClientRecords } from '../storage/memory/clients.js';
import { adminOperations } from './operations.js';
import { adminRoutes } from './routes.js';

export { ADMIN_PREFIX } from './openapi.js';
export { DEFAULT_ADMIN_SCOPE } from './settings.js';

/**
 * The admin API (`admin` option, docs/admin-api.md) as a feature: its routes under
 * `{base}/admin/v1/`, made with its one route table (`operations.ts`), which the OpenAPI document
 * is generated from too. Its settings are resolved with the instance (`InstanceSettings.admin`),
 * because its recorder must hear the instance's events from the start.
 */
export const adminFeature: Feature = {
  name: 'admin API',
  setup(options, shared) {
    const settings = shared.admin;
    if (!settings) return {};
    const operations = adminOperations({
      settings,
      keyRotation: shared.keyRotation,
      storedKeys: shared.storedKeys,
      hostClients: options.clients === undefined ? undefined : hostClientRecords(options.clients),
    });
    return { routes: adminRoutes(operations, settings, shared.dpop) };
  },
};
