/** Asking an instance for its answer, the way every server adapter does. */
import type { Gatehouse } from '../gatehouse.js';
import type { Answer } from '../http/reply.js';
import { internalsOf } from '../protect/instance-internals.js';

/** What an adapter's `gatehouse()` middleware needs of an instance. */
export type Servable = Pick<Gatehouse, 'fetch' | 'handles'>;

/**
 * The instance's answer to `request`, for `sendWebResponse` of `@gatehousejs/core/node`: a
 * {@link Reply} for text Gatehouse built itself (no `Response`, no body stream), else a `Response`.
 * Anything not made by `createGatehouse` (a wrapper, a test double) is asked through `fetch`.
 */
export function answerOf(instance: Servable, request: Request): Promise<Answer> {
  const internals = internalsOf(instance);
  return internals ? internals.answer(request) : instance.fetch(request);
}

/**
 * Tells the instance the path its adapter is mounted at (the prefix the framework strips before
 * the adapter, e.g. Express's `req.baseUrl`; `''` at the root). When none of its routes lies at or
 * below that path, every request there would fall through to the framework's 404: the instance
 * logs one warning naming the mount path and its issuer path. Costs a string comparison once the
 * path was found to fit; does nothing for anything not made by `createGatehouse`.
 */
export function checkMountPath(instance: Servable, mountPath: string): void {
  if (mountPath !== '') internalsOf(instance)?.mountedAt(mountPath);
}
