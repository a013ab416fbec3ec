import { ConfigurationError } from '../errors.js';
import type { TelemetryOptions } from '../options.js';
import { isOtelApi } from './open-telemetry-api.js';
import { Telemetry } from './telemetry.js';

/** The instance's telemetry from the `telemetry` option: none without it. */
export function telemetrySettings(
  given: TelemetryOptions | undefined,
  instance: string,
): Telemetry | undefined {
  if (given === undefined) return undefined;
  if (typeof given !== 'object' || given === null)
    throw new ConfigurationError('telemetry: expected an object ({ api }).', { option: 'telemetry' });
  if (!isOtelApi(given.api)) {
    throw new ConfigurationError(
      "telemetry.api: expected the @opentelemetry/api module (import * as api from '@opentelemetry/api').",
      { option: 'telemetry.api' },
    );
  }
  return new Telemetry(instance, given.api);
}
