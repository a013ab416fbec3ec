import type { ProtocolErrorCode } from '../errors.js';
import type { Answer } from './reply.js';

/**
 * The error code Gatehouse decided for an answer that does not carry it as JSON: an authorize error
 * redirect (RFC 6749 §4.1.2.1) or an HTML error page. Kept beside the answer, not read back from it,
 * so that telemetry never parses a `Location` whose URI (and registered query) the client chose.
 */
const refusals = new WeakMap<Answer, ProtocolErrorCode>();

/** Marks `answer` as the refusal `code`; returns it. */
export function markRefusal<A extends Answer>(answer: A, code: ProtocolErrorCode): A {
  refusals.set(answer, code);
  return answer;
}

/** The code {@link markRefusal} marked `answer` with, if any. */
export function refusalOf(answer: Answer): ProtocolErrorCode | undefined {
  return refusals.get(answer);
}
