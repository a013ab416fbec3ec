import { ConfigurationError } from '../../errors.js';
import { defaultTransport } from '../../http/default-transport.js';
import type { OutboundFetch } from '../../http/guarded-fetch.js';
import { whole } from '../../option-values.js';
import type { BackchannelLogoutOptions } from '../../options.js';

/** Back-channel logout as the instance runs it (`backchannelLogout`, validated, defaults filled in). */
export interface BackchannelLogoutSettings {
  /** Carries each logout request (the guarded fetch's transport). */
  readonly fetch: OutboundFetch;
  /** Self-registered clients may name `http://` URIs on a loopback host (a development setting). */
  readonly allowLoopback: boolean;
  /** Deadline of one delivery attempt, in milliseconds. */
  readonly timeoutMs: number;
  /** Attempts of one delivery, the first included. */
  readonly maxAttempts: number;
  /** Wait before the first retry, in milliseconds; each further retry waits twice as long. */
  readonly retryDelayMs: number;
  /** Deliveries in flight at once on this instance. */
  readonly maxConcurrentDeliveries: number;
  /** Deliveries waiting or in flight for one client. */
  readonly maxQueuedPerClient: number;
  /** Deliveries waiting or in flight on this instance, all clients together. */
  readonly maxQueued: number;
  /** Lifetime of a logout token (`exp` - `iat`), in seconds. */
  readonly logoutTokenTtl: number;
  /** Clients remembered per session (the most recent ones). */
  readonly maxClientsPerSession: number;
  /** The runtime's way to keep a request's background work alive (`waitUntil`), if given. */
  readonly waitUntil: ((work: Promise<unknown>) => void) | undefined;
}

/** Validates `backchannelLogout`; `undefined` when back-channel logout is off. */
export function backchannelLogoutSettings(
  given: BackchannelLogoutOptions | undefined,
): BackchannelLogoutSettings | undefined {
  if (given === undefined) return undefined;
  if (typeof given !== 'object' || given === null || Array.isArray(given))
    throw new ConfigurationError(
      'backchannelLogout: expected an object ({} turns it on with the defaults).',
      {
        option: 'backchannelLogout',
      },
    );
  for (const name of ['fetch', 'waitUntil'] as const)
    if (given[name] !== undefined && typeof given[name] !== 'function')
      throw new ConfigurationError(`backchannelLogout.${name}: expected a function.`, {
        option: `backchannelLogout.${name}`,
      });
  if (given.allowLoopback !== undefined && typeof given.allowLoopback !== 'boolean')
    throw new ConfigurationError('backchannelLogout.allowLoopback: expected a boolean.', {
      option: 'backchannelLogout.allowLoopback',
    });
  const maxQueuedPerClient = whole(
    'backchannelLogout.maxQueuedPerClient',
    given.maxQueuedPerClient,
    100,
    1,
    100_000,
  );
  return {
    fetch: given.fetch ?? defaultTransport().fetch,
    allowLoopback: given.allowLoopback ?? false,
    timeoutMs: whole('backchannelLogout.timeoutMs', given.timeoutMs, 5000, 100, 30_000),
    maxAttempts: whole('backchannelLogout.maxAttempts', given.maxAttempts, 5, 1, 10),
    retryDelayMs: whole('backchannelLogout.retryDelayMs', given.retryDelayMs, 2000, 10, 600_000),
    maxConcurrentDeliveries: whole(
      'backchannelLogout.maxConcurrentDeliveries',
      given.maxConcurrentDeliveries,
      8,
      1,
      1024,
    ),
    maxQueuedPerClient,
    maxQueued: whole(
      'backchannelLogout.maxQueued',
      given.maxQueued,
      Math.max(10_000, maxQueuedPerClient),
      maxQueuedPerClient,
      1_000_000,
    ),
    logoutTokenTtl: whole('backchannelLogout.logoutTokenTtl', given.logoutTokenTtl, 120, 10, 600),
    maxClientsPerSession: whole(
      'backchannelLogout.maxClientsPerSession',
      given.maxClientsPerSession,
      32,
      1,
      256,
    ),
    waitUntil: given.waitUntil,
  };
}
