import type { GatehouseEvent } from '../events.js';
import type { Answer } from './reply.js';

/** What one request's handlers report (through its events) to its span and metrics. */
export interface RequestObservation {
  observe(event: GatehouseEvent): void;
}

/**
 * What the handlers' context knows of the instance's telemetry: no OpenTelemetry type, so that the
 * public type declarations never need the optional `@opentelemetry/api` package.
 */
export interface InstanceTelemetry {
  /**
   * Runs one request of `route` in its span and counts it. `run` gets the observation its events go
   * to, or `undefined` when no provider is registered.
   */
  endpoint(
    route: string,
    request: Request,
    run: (observation: RequestObservation | undefined) => Promise<Answer>,
  ): Promise<Answer>;
}
