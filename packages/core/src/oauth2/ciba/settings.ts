import { ConfigurationError } from '../../errors.js';
import { defaultTransport } from '../../http/default-transport.js';
import type { OutboundFetch } from '../../http/guarded-fetch.js';
import { whole } from '../../option-values.js';
import type { CibaNotification, CibaOptions } from '../../options.js';
import { CIBA_DELIVERY_MODES, type CibaDeliveryMode } from '../../records/backchannel-client.js';

/** CIBA as the instance runs it (`ciba`, validated, defaults filled in). */
export interface CibaSettings {
  readonly notify: ((request: CibaNotification) => unknown) | undefined;
  readonly resolveLoginHint: CibaOptions['resolveLoginHint'];
  readonly deliveryModes: readonly CibaDeliveryMode[];
  /** `expires_in` without `requested_expiry`, in seconds. */
  readonly requestLifetimeSeconds: number;
  /** Longest `expires_in`, in seconds, and the window of the limits below. */
  readonly maxRequestLifetimeSeconds: number;
  readonly pollIntervalSeconds: number;
  readonly maxRequestsPerClient: number;
  readonly maxPendingPerUser: number;
  readonly maxNotificationsPerUser: number;
  readonly notifyTimeoutMs: number;
  readonly ping: {
    readonly fetch: OutboundFetch;
    readonly allowLoopback: boolean;
    readonly timeoutMs: number;
    readonly attempts: number;
  };
}

/** The defaults: a 5-minute request, polled every 5 s (CIBA §7.3), and the limits of security.md. */
export const CIBA_DEFAULTS = {
  requestLifetimeSeconds: 300,
  maxRequestLifetimeSeconds: 1800,
  pollIntervalSeconds: 5,
  maxRequestsPerClient: 100,
  maxPendingPerUser: 10,
  maxNotificationsPerUser: 20,
  notifyTimeoutMs: 5000,
  pingTimeoutMs: 3000,
  pingAttempts: 3,
} as const;

/** Validates `ciba` (throws `ConfigurationError` naming the option); `undefined` when CIBA is off. */
export function cibaSettings(options: CibaOptions | undefined): CibaSettings | undefined {
  if (options === undefined) return undefined;
  if (typeof options !== 'object' || options === null)
    throw new ConfigurationError('ciba: expected an object (`ciba: {}` turns CIBA on with the defaults).', {
      option: 'ciba',
    });
  const d = CIBA_DEFAULTS;
  for (const name of ['notify', 'resolveLoginHint'] as const)
    if (options[name] !== undefined && typeof options[name] !== 'function')
      throw new ConfigurationError(`ciba.${name}: expected a function.`, { option: `ciba.${name}` });
  const deliveryModes = options.deliveryModes ?? CIBA_DELIVERY_MODES;
  if (
    !Array.isArray(deliveryModes) ||
    deliveryModes.length === 0 ||
    !deliveryModes.every((mode) => CIBA_DELIVERY_MODES.includes(mode))
  )
    throw new ConfigurationError(
      `ciba.deliveryModes: expected a non-empty array of ${CIBA_DELIVERY_MODES.map((m) => `"${m}"`).join(', ')}.`,
      { option: 'ciba.deliveryModes' },
    );
  const requestLifetimeSeconds = whole(
    'ciba.requestLifetimeSeconds',
    options.requestLifetimeSeconds,
    d.requestLifetimeSeconds,
    30,
    3600,
  );
  const maxRequestLifetimeSeconds = whole(
    'ciba.maxRequestLifetimeSeconds',
    options.maxRequestLifetimeSeconds,
    Math.max(d.maxRequestLifetimeSeconds, requestLifetimeSeconds),
    requestLifetimeSeconds,
    3600,
  );
  const ping = options.ping ?? {};
  if (ping.fetch !== undefined && typeof ping.fetch !== 'function')
    throw new ConfigurationError('ciba.ping.fetch: expected a function.', { option: 'ciba.ping.fetch' });
  return {
    notify: options.notify,
    resolveLoginHint: options.resolveLoginHint,
    deliveryModes: [...new Set(deliveryModes)],
    requestLifetimeSeconds,
    maxRequestLifetimeSeconds,
    pollIntervalSeconds: whole(
      'ciba.pollIntervalSeconds',
      options.pollIntervalSeconds,
      d.pollIntervalSeconds,
      1,
      60,
    ),
    maxRequestsPerClient: whole(
      'ciba.maxRequestsPerClient',
      options.maxRequestsPerClient,
      d.maxRequestsPerClient,
      1,
      1_000_000,
    ),
    maxPendingPerUser: whole(
      'ciba.maxPendingPerUser',
      options.maxPendingPerUser,
      d.maxPendingPerUser,
      1,
      100,
    ),
    maxNotificationsPerUser: whole(
      'ciba.maxNotificationsPerUser',
      options.maxNotificationsPerUser,
      d.maxNotificationsPerUser,
      1,
      10_000,
    ),
    notifyTimeoutMs: whole('ciba.notifyTimeoutMs', options.notifyTimeoutMs, d.notifyTimeoutMs, 100, 30_000),
    ping: {
      fetch: ping.fetch ?? defaultTransport().fetch,
      allowLoopback: ping.allowLoopback === true,
      timeoutMs: whole('ciba.ping.timeoutMs', ping.timeoutMs, d.pingTimeoutMs, 100, 30_000),
      attempts: whole('ciba.ping.attempts', ping.attempts, d.pingAttempts, 1, 6),
    },
  };
}
