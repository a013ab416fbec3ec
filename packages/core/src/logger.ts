import type { Logger } from './events.js';
import type { GatehouseOptions } from './options.js';

/** The instance's logger (`logger`, `debug` options, or `GATEHOUSE_DEBUG` in the environment). */
export function instanceLogger(options: GatehouseOptions): Logger {
  return withDebugLog(options.logger ?? console, options.debug ?? debugFromEnvironment());
}
/** `GATEHOUSE_DEBUG=1` (or `true`) in the environment, read through `globalThis` (no `process` on workerd). */
function debugFromEnvironment(): boolean {
  const value = (globalThis as { process?: { env?: Record<string, string | undefined> } }).process?.env
    ?.GATEHOUSE_DEBUG;
  return value === '1' || value === 'true';
}
/**
 * The instance's logger: the host's, with `debug` only when the debug log is on, so that the code
 * that refuses a request checks one property and builds no line when it is off.
 */
function withDebugLog(logger: Logger, debug: boolean): Logger {
  const warn = (message: string, ...details: unknown[]) => logger.warn(message, ...details);
  const error = (message: string, ...details: unknown[]) => logger.error(message, ...details);
  if (!debug) return { warn, error };
  const write = logger.debug ? logger.debug.bind(logger) : console.debug.bind(console);
  return { warn, error, debug: write };
}
