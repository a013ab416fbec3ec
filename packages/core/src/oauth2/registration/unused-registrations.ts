import type { ClientRegistry, RegisteredClient } from '../../storage/types.js';
import { addSeconds, type EpochMs, secondsToMs } from '../../time.js';
import { registrationExtensionOf } from './registration-record.js';

/**
 * The directory hook that keeps used dynamic registrations alive: a registration lapses
 * `unusedTtl` seconds after it was last used (RFC 7591 leaves a registration's lifetime to the
 * server). Each lookup of the client (an authorization or token request naming it) moves the
 * deadline, writing at most once per half lifetime so that busy clients cost no write per request,
 * and always on the first use, which marks the registration used (`usedAt`): a full registry
 * evicts never-used registrations first. A failed write is ignored: it only leaves the earlier
 * deadline (and mark) in place.
 */
export function slideUnusedDeadline(
  registry: ClientRegistry,
  unusedTtl: number,
  now: () => EpochMs,
): (registration: RegisteredClient) => Promise<void> {
  return async (registration) => {
    if (registration.expiresAt === undefined) return;
    if (registrationExtensionOf(registration)?.source !== 'dynamic_registration') return;
    const at = now();
    const deadline = addSeconds(at, unusedTtl);
    const firstUse = registration.usedAt === undefined;
    if (!firstUse && deadline - registration.expiresAt < secondsToMs(unusedTtl) / 2) return;
    await registry.touchClient(registration.client.id, deadline, at).catch(() => {});
  };
}
