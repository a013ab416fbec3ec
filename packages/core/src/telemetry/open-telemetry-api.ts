import type * as OpenTelemetryApi from '@opentelemetry/api';

/** The `@opentelemetry/api` module, as the host has it. Type-only import: nothing is bundled. */
export type OtelApi = typeof OpenTelemetryApi;

// A variable, not a literal: bundlers leave the import alone, so that the optional peer dependency
// missing is no build error (workerd, Bun, Deno bundles); at run time a missing package means no telemetry.
const SPECIFIER = '@opentelemetry/api';
let loading: Promise<OtelApi | undefined> | undefined;

/**
 * The host's `@opentelemetry/api`, imported once per process, or `undefined` when it is not
 * installed. Its globals (`Symbol.for('opentelemetry.js.api.1')`) are shared by every copy of the
 * package, so the providers the host registers are the ones found here.
 */
export function loadOpenTelemetry(): Promise<OtelApi | undefined> {
  loading ??= import(/* @vite-ignore */ /* webpackIgnore: true */ SPECIFIER).then(
    (module: OtelApi & { default?: OtelApi }) => (module.trace ? module : module.default),
    () => undefined,
  );
  return loading;
}

/** Whether `value` looks like the `@opentelemetry/api` module (the `telemetry.api` option). */
export function isOtelApi(value: unknown): value is OtelApi {
  const api = value as Partial<OtelApi> | null;
  return (
    typeof api === 'object' &&
    api !== null &&
    typeof api.trace?.getTracerProvider === 'function' &&
    typeof api.metrics?.getMeterProvider === 'function' &&
    typeof api.context?.active === 'function' &&
    typeof api.propagation?.extract === 'function'
  );
}
