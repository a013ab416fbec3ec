import type { Awaitable } from '../awaitable.js';
import type { Logger } from '../events.js';
import type { Gatehouse } from '../gatehouse.js';

/*
 * What `defineOperations` needs of a host beyond its public interface: the instance a request is
 * for. Kept in this module's map, keyed by the host, like the instance internals
 * (protect/instance-internals.ts says why that is enough across the build's entries).
 */

const internalsByHost = new WeakMap<object, HostInternals>();

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

/** Records `internals` as those of `host`. */
export function attachHostInternals<T extends object>(host: T, internals: HostInternals): T {
  internalsByHost.set(host, internals);
  return host;
}

/** The internals of a host made by `createGatehouseHost`, `undefined` for anything else. */
export function hostInternalsOf(host: object): HostInternals | undefined {
  return internalsByHost.get(host);
}
