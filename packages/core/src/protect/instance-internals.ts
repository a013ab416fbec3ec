import type { Awaitable } from '../awaitable.js';
import type { Logger } from '../events.js';
import type { Answer } from '../http/reply.js';
import type { AuthenticateOptions, AuthenticationResult } from './types.js';

/*
 * What an instance offers its adapters and `defineOperations` beyond the public `Gatehouse`
 * interface: the fast paths. Kept in this module's map, keyed by the instance, rather than in the
 * interface, so that the public surface stays what an application uses. Every entry of the build
 * shares this one module (ESM and CJS builds both split shared code into chunks); an instance of
 * the other build (a host mixing `import` and `require`) has no entry here, and its adapters use
 * the public `fetch` and `authenticate` instead: slower, never wrong.
 */

const internalsByInstance = new WeakMap<object, InstanceInternals>();

/** The internals of one instance. */
export interface InstanceInternals {
  /**
   * `fetch`'s answer before it becomes a `Response`: text Gatehouse built itself (JSON, HTML) is a
   * {@link Reply} a server writes directly, without a `Response` and its body stream (bench
   * run F). Never rejects.
   */
  answer(request: Request): Promise<Answer>;
  /**
   * `authenticate`'s result, returned as it is when it is known at once (a bearer token verified
   * before, checked against a store that answers synchronously), else as a promise (bench run H).
   * Throws `TypeError` for options naming no or unknown schemes.
   */
  authenticateNow(request: Request, options: AuthenticateOptions): Awaitable<AuthenticationResult>;
  /** The instance's CORS (`http/cors.ts`) for a host's own routes: a preflight's answer, and the headers of an answer. */
  readonly cors: {
    preflight(request: Request, methods: readonly string[]): Promise<Response>;
    apply<T extends Answer>(request: Request, answer: T): Awaitable<T>;
  };
  /** The instance's logger (`options.logger`). */
  readonly logger: Logger;
  /** A request reached the instance through a mount at `mountPath` (warns once if no route is there). */
  mountedAt(mountPath: string): void;
}

/** Records `internals` as those of `instance` (once: an instance's internals never change). */
export function attachInternals<T extends object>(instance: T, internals: InstanceInternals): T {
  internalsByInstance.set(instance, internals);
  return instance;
}

/** The internals of an instance made by `createGatehouse`, `undefined` for anything else. */
export function internalsOf(instance: object): InstanceInternals | undefined {
  return internalsByInstance.get(instance);
}
