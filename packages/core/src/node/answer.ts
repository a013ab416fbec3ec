/** Asking an instance for its answer, the way every Node adapter does. */
import type { Gatehouse } from '../gatehouse.js';
import type { Answer } from '../http/reply.js';

/** What a Node adapter's `gatehouse()` middleware needs of an instance (`answer` when it has one). */
export type Servable = Pick<Gatehouse, 'fetch' | 'handles'> & Partial<Pick<Gatehouse, 'answer'>>;

/**
 * The instance's answer to `request`, for {@link sendWebResponse}: through `answer` when the instance
 * has it (text replies then skip building a `Response`), else through `fetch` (e.g. a test double).
 */
export function answerOf(instance: Servable, request: Request): Promise<Answer> {
  return instance.answer ? instance.answer(request) : instance.fetch(request);
}
