import type * as OpenTelemetryApi from '@opentelemetry/api';

/**
 * The `@opentelemetry/api` module, as the host passes it (`telemetry.api`). Type-only import:
 * nothing of the optional peer dependency is bundled or imported by Gatehouse itself, so the main
 * entry loads on every runtime (workerd refuses a dynamic import by a computed name, and a literal
 * one would make the optional package required for bundlers).
 */
export type OtelApi = typeof OpenTelemetryApi;

/** Whether `value` looks like the `@opentelemetry/api` module. */
export function isOtelApi(value: unknown): value is OtelApi {
  const api = value as Partial<OtelApi> | null;
  return (
    typeof api === 'object' &&
    api !== null &&
    typeof api.trace?.getTracerProvider === 'function' &&
    typeof api.metrics?.getMeterProvider === 'function' &&
    typeof api.context?.active === 'function' &&
    typeof api.propagation?.extract === 'function' &&
    typeof api.createNoopMeter === 'function'
  );
}
