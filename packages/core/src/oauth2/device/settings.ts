import { whole } from '../../option-values.js';
import type { DeviceAuthorizationOptions } from '../../options.js';

/** The device authorization grant as the instance runs it (`deviceAuthorization`, validated, defaults filled in). */
export interface DeviceAuthorizationSettings {
  /** Lifetime of device and user codes, and the window of the limits, in seconds. */
  readonly codeLifetimeSeconds: number;
  readonly pollIntervalSeconds: number;
  readonly maxLookupsPerAddress: number;
  readonly maxFailedLookups: number;
  readonly maxPublicRequestsPerAddress: number;
}

/** The defaults (RFC 8628 §3.2's 5 s interval; a 10-minute code; the limits of security.md). */
export const DEVICE_AUTHORIZATION_DEFAULTS: DeviceAuthorizationSettings = {
  codeLifetimeSeconds: 600,
  pollIntervalSeconds: 5,
  maxLookupsPerAddress: 20,
  maxFailedLookups: 1000,
  maxPublicRequestsPerAddress: 30,
};

/** Validates `deviceAuthorization` (throws `ConfigurationError` naming the option). */
export function deviceAuthorizationSettings(
  options: DeviceAuthorizationOptions | undefined,
): DeviceAuthorizationSettings {
  const given = options ?? {};
  const d = DEVICE_AUTHORIZATION_DEFAULTS;
  return {
    codeLifetimeSeconds: whole(
      'deviceAuthorization.codeLifetimeSeconds',
      given.codeLifetimeSeconds,
      d.codeLifetimeSeconds,
      60,
      1800,
    ),
    pollIntervalSeconds: whole(
      'deviceAuthorization.pollIntervalSeconds',
      given.pollIntervalSeconds,
      d.pollIntervalSeconds,
      1,
      60,
    ),
    maxLookupsPerAddress: whole(
      'deviceAuthorization.maxLookupsPerAddress',
      given.maxLookupsPerAddress,
      d.maxLookupsPerAddress,
      2,
      1_000_000,
    ),
    maxFailedLookups: whole(
      'deviceAuthorization.maxFailedLookups',
      given.maxFailedLookups,
      d.maxFailedLookups,
      1,
      1_000_000_000,
    ),
    maxPublicRequestsPerAddress: whole(
      'deviceAuthorization.maxPublicRequestsPerAddress',
      given.maxPublicRequestsPerAddress,
      d.maxPublicRequestsPerAddress,
      1,
      1_000_000,
    ),
  };
}
