import type { Awaitable } from '../awaitable.js';
import { internalsOf } from '../protect/instance-internals.js';
import type { AuthenticateOptions, AuthenticationResult } from '../protect/types.js';

/**
 * What a framework adapter needs of an instance to protect the host's routes: a `Gatehouse`, or
 * any object that authenticates the same way (a wrapper, a test double).
 */
export interface Authenticator {
  authenticate(request: Request, options: AuthenticateOptions): Promise<AuthenticationResult>;
}

/**
 * The instance's {@link AuthenticationResult} for `request`: as it is when it is known at once (a
 * bearer token verified before, checked against the memory grant store), else as a promise. An
 * {@link Authenticator} not made by `createGatehouse` is asked through `authenticate`. Throws
 * `TypeError` (synchronously, or as a rejection) for options naming no or unknown schemes.
 */
export function authenticateNow(
  instance: Authenticator,
  request: Request,
  options: AuthenticateOptions,
): Awaitable<AuthenticationResult> {
  const internals = internalsOf(instance);
  return internals ? internals.authenticateNow(request, options) : instance.authenticate(request, options);
}

/**
 * Authenticates `request` with `instance` and hands the result to `use`: synchronously when the
 * instance knows it at once ({@link authenticateNow}), otherwise once it is known. Returns what
 * `use` returned, or a promise of it. Adapters build their `requireAuth` middleware on it, so that
 * a request with a token verified before goes on to the route in the same turn of the event loop.
 * Throws `TypeError` (synchronously, or as a rejection) for options naming no or unknown schemes.
 */
export function withAuthentication<T>(
  instance: Authenticator,
  request: Request,
  options: AuthenticateOptions,
  use: (result: AuthenticationResult) => T,
): T | Promise<Awaited<T>> {
  const internals = internalsOf(instance);
  // Anything else (a wrapper, a test double) answers through its promise, maybe of another realm.
  if (internals === undefined)
    return Promise.resolve(instance.authenticate(request, options)).then(use) as Promise<Awaited<T>>;
  const result = internals.authenticateNow(request, options);
  return result instanceof Promise ? (result.then(use) as Promise<Awaited<T>>) : use(result);
}
