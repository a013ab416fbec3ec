import type { Awaitable } from '../awaitable.js';
import type { Logger } from '../events.js';
import type { Gatehouse } from '../gatehouse.js';

/*
 * What `defineOperations` needs of a host beyond its public interface: the instance a request is
 * for. Under a registered symbol, like the instance internals (protect/instance-internals.ts).
 */

const HOST_INTERNALS: unique symbol = Symbol.for('gatehouse.host.internals') as never;

/** The internals of a host made by `createGatehouseHost`. */
export interface HostInternals {
  /** The mount of the host's layout for the router: `/:instance`, or `` for a custom layout. */
  readonly mount: string;
  /** The instance name of `url`, given the params of a route matched below {@link mount}. */
  nameOf(url: URL, params: Readonly<Record<string, string>>): string | undefined;
  /** The instance `name`, `null` for none (unknown or malformed name). Rejects like `resolve`. */
  instanceNamed(name: string): Awaitable<Gatehouse | null>;
  readonly logger: Logger;
}

/** Puts `internals` on `host`, not enumerable, not writable. */
export function attachHostInternals<T extends object>(host: T, internals: HostInternals): T {
  Object.defineProperty(host, HOST_INTERNALS, { value: internals });
  return host;
}

/** The internals of a host made by `createGatehouseHost`, `undefined` for anything else. */
export function hostInternalsOf(host: object): HostInternals | undefined {
  return (host as { [HOST_INTERNALS]?: HostInternals })[HOST_INTERNALS];
}
