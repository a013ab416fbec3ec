import { ConfigurationError } from '../errors.js';
import type { TelemetryOptions } from '../options.js';
import { isOtelApi, loadOpenTelemetry } from './open-telemetry-api.js';
import { Telemetry } from './telemetry.js';

/**
 * The instance's telemetry from the `telemetry` option: off with `false`; through the given
 * `api`; else through `@opentelemetry/api` when the host has it installed.
 */
export function telemetrySettings(
  given: false | TelemetryOptions | undefined,
  instance: string,
): Telemetry | undefined {
  if (given === false) return undefined;
  if (given !== undefined && (typeof given !== 'object' || given === null))
    throw new ConfigurationError('telemetry: expected false or an object ({ api }).', {
      option: 'telemetry',
    });
  const api = given?.api;
  if (api !== undefined && !isOtelApi(api)) {
    throw new ConfigurationError(
      "telemetry.api: expected the @opentelemetry/api module (import * as api from '@opentelemetry/api').",
      { option: 'telemetry.api' },
    );
  }
  return new Telemetry(instance, api === undefined ? loadOpenTelemetry() : Promise.resolve(api));
}
