import type { ClientDirectory } from '../context.js';
import { ClientRecordError, clientRecordProblems } from '../records/client-record.js';
import { clientNamed, type RecordProblems } from '../records/record-problems.js';
import { markSelfRegistered } from '../storage/self-registered.js';
import type { ClientRecord, ClientRegistry, ClientStore, RegisteredClient } from '../storage/types.js';
import type { EpochMs } from '../time.js';
import type { ClientJwksCache } from './client-auth/client-jwks.js';

/** What registration features add to the directory (`oauth2/registration/`). */
export interface ClientDirectoryExtensions {
  /**
   * The instance's own clients (the operations console's), asked first: their ids are reserved, so
   * neither a host record nor a registration can stand in for them.
   */
  readonly internal?: ReadonlyMap<string, ClientRecord>;
  /**
   * Called with each live registration a lookup finds, before it is answered (dynamic registration
   * moves the deadline of unused registrations from here).
   */
  readonly found?: (registration: RegisteredClient) => Promise<void>;
  /**
   * Client ID metadata documents, whose id is the URL of the client's registration: asked, instead
   * of the registry, for the ids the host does not know and `claims` (URL-shaped ones; RFC 7591
   * ids are random and never URLs, so the registry is not consulted, and an anonymous request
   * naming a URL costs no engine round trip). `resolve` may throw a `ProtocolError` saying why
   * such an id is refused.
   */
  readonly documents?: {
    readonly claims: (clientId: string) => boolean;
    readonly resolve: (clientId: string, request?: Request) => Promise<ClientRecord | null>;
  };
}

/**
 * The clients an instance knows: the host's {@link ClientStore} first (configuration wins over
 * registration, so a registration can never shadow a configured client id), then the instance's
 * {@link ClientRegistry} or (when enabled, for URL-shaped ids) a client ID metadata document. Only the host's store
 * answers `isOriginAllowed`: registering a client must not grant credentialed CORS to the origin
 * that registered it. Clients of the registry and of metadata documents come back marked
 * self-registered (`isSelfRegistered`): anyone can create them.
 *
 * The host's records are checked as they enter (`records/client-record.ts`): a record that cannot
 * work is logged once (naming the client and the field) and answered with a
 * {@link ClientRecordError}, a 4xx for that client, never passed on to fail as a 500.
 * Registrations were checked when they were registered.
 */
export function clientDirectory(
  host: ClientStore,
  registry: ClientRegistry,
  now: () => EpochMs,
  problems: RecordProblems,
  jwks: ClientJwksCache,
  allowedOrigins: readonly string[],
  extensions: ClientDirectoryExtensions = {},
): ClientDirectory {
  return {
    jwks,
    problems,
    async findClient(clientId: string, request?: Request): Promise<ClientRecord | null> {
      const internal = extensions.internal?.get(clientId);
      if (internal) return internal;
      const configured = await host.findClient(clientId);
      if (configured) {
        const found = clientRecordProblems(configured, clientId);
        if (found.length === 0) return configured;
        problems.report(clientNamed(clientId), 'ClientStore.findClient', found);
        throw new ClientRecordError(clientId);
      }
      if (extensions.documents?.claims(clientId)) {
        const document = await extensions.documents.resolve(clientId, request);
        return document && markSelfRegistered(document);
      }
      const registration = await registry.findClient(clientId, now());
      if (!registration) return null;
      await extensions.found?.(registration);
      return markSelfRegistered(registration.client);
    },
    // The static list first (`cors.allowedOrigins`), then the host's clients' registered origins.
    isOriginAllowed: host.isOriginAllowed
      ? async (origin: string) => allowedOrigins.includes(origin) || host.isOriginAllowed!(origin)
      : async (origin: string) => allowedOrigins.includes(origin),
  };
}
