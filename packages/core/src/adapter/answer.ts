/** Asking an instance for its answer, the way every server adapter does. */
import type { Gatehouse } from '../gatehouse.js';
import type { Answer } from '../http/reply.js';
import { internalsOf } from './internals.js';

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
