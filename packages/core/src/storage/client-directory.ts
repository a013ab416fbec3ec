import type { EpochMs } from '../time.js';
import type { ClientRecord, ClientRegistry, ClientStore } from './types.js';

/**
 * The clients an instance knows: the host's {@link ClientStore} first (configuration wins over
 * registration, so a registration can never shadow a configured client id), then the instance's
 * {@link ClientRegistry}. Only the host's store answers `isOriginAllowed`: registering a client must
 * not grant credentialed CORS to the origin that registered it.
 */
export function clientDirectory(
  host: ClientStore,
  registry: ClientRegistry,
  now: () => EpochMs,
): ClientStore {
  return {
    async findClient(clientId: string): Promise<ClientRecord | null> {
      const configured = await host.findClient(clientId);
      if (configured) return configured;
      return (await registry.findClient(clientId, now()))?.client ?? null;
    },
    ...(host.isOriginAllowed ? { isOriginAllowed: (origin: string) => host.isOriginAllowed!(origin) } : {}),
  };
}
