import type { RegisteredClient } from '../../storage/types.js';
import type { ClientMetadata } from './client-metadata.js';

/** How a registered client came to be. */
export type RegistrationSource = 'dynamic_registration' | 'client_id_metadata_document';

/**
 * What Gatehouse keeps of a registration besides the client record, in {@link RegisteredClient.ext}
 * (stored losslessly by every engine, so no engine needed a new column): where it came from, the
 * registered metadata the client record has no field for, and for dynamic registrations the hash
 * of the registration access token (RFC 7592 §3; the token itself is never stored).
 */
// A type rather than an interface: it must fit `RecordExtensions` (an index signature).
export type RegistrationExtension = {
  readonly source: RegistrationSource;
  /** `application_type`, `response_types` and the informational metadata, as registered. */
  readonly metadata: Readonly<Record<string, unknown>>;
  readonly registration_access_token_hash?: string;
};

/** The `ext` of a registration from `metadata`. */
export function registrationExtension(
  source: RegistrationSource,
  metadata: ClientMetadata,
  accessTokenHash?: string,
): RegistrationExtension {
  return {
    source,
    metadata: {
      application_type: metadata.applicationType,
      response_types: metadata.responseTypes,
      ...metadata.informational,
    },
    ...(accessTokenHash === undefined ? {} : { registration_access_token_hash: accessTokenHash }),
  };
}

/** The registration's extension when Gatehouse wrote it, else `undefined` (a host's own record). */
export function registrationExtensionOf(registration: RegisteredClient): RegistrationExtension | undefined {
  const ext = registration.ext as Partial<RegistrationExtension> | undefined;
  if (ext?.source !== 'dynamic_registration' && ext?.source !== 'client_id_metadata_document')
    return undefined;
  return ext as RegistrationExtension;
}
