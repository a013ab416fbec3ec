import type { Feature } from '../../feature.js';
import type { DynamicRegistrationOptions } from '../../options.js';
import { CIBA_DELIVERY_MODES } from '../../records/backchannel-client.js';
import type { ClientRegistry, RegisteredClient } from '../../storage/types.js';
import type { EpochMs } from '../../time.js';
import { ENDPOINTS } from '../metadata.js';
import { registrationRoutes } from './routes.js';
import { dynamicRegistrationSettings } from './settings.js';
import { slideUnusedDeadline } from './unused-registrations.js';

/**
 * RFC 7591 dynamic client registration (and RFC 7592's client configuration endpoint) as a
 * feature: its options (`dynamicRegistration`), its routes, and `registration_endpoint` in the
 * discovery documents (RFC 8414 §2), all only when the option is given. The handlers close over the
 * settings they were built with; the shared context carries none of them.
 */
export const dynamicRegistrationFeature: Feature = {
  name: 'dynamic registration',
  setup(options, shared) {
    const settings = dynamicRegistrationSettings(options.dynamicRegistration);
    if (!settings) return {};
    return {
      // With CIBA served (`ciba` option), a client may register for it (CIBA Core 1.0 §4); the
      // CIBA feature validates the option itself.
      routes: registrationRoutes(
        settings,
        shared.backchannelLogout,
        options.ciba === undefined ? undefined : (options.ciba.deliveryModes ?? CIBA_DELIVERY_MODES),
      ),
      metadata: (endpoint) => ({ registration_endpoint: endpoint(ENDPOINTS.registration) }),
    };
  },
};

/**
 * Client ID metadata documents (draft-ietf-oauth-client-id-metadata-document) as a feature: its
 * member of the discovery documents (§6). Its settings (`clientMetadataDocuments` option) are
 * resolved with the instance, whose client directory resolves such ids.
 */
export const clientMetadataDocumentsFeature: Feature = {
  name: 'client ID metadata documents',
  setup: (_options, shared) =>
    shared.clientMetadataDocuments
      ? { metadata: () => ({ client_id_metadata_document_supported: true }) }
      : {},
};

/**
 * The client directory's hook of dynamic registration (`oauth2/client-directory.ts` `found`): each
 * lookup of a registration moves its unused deadline (`unused-registrations.ts`); `undefined` when
 * registration is off. The directory is part of the shared core, built before the features, so the
 * composition root asks for this hook here; it validates the option exactly as the feature does.
 */
export function registrationLookupHook(
  options: DynamicRegistrationOptions | undefined,
  registry: ClientRegistry,
  now: () => EpochMs,
): ((registration: RegisteredClient) => Promise<void>) | undefined {
  const settings = dynamicRegistrationSettings(options);
  return settings && slideUnusedDeadline(registry, settings.unusedTtl, now);
}
