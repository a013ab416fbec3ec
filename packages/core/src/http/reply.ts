import { fieldPairs, replyFields } from './reply-headers.js';

const REPLY: unique symbol = Symbol.for('gatehouse.reply') as never;

/**
 * An answer whose body is text already in memory (JSON, an HTML page), kept as plain data until a
 * Web `Response` is really needed.
 *
 * Why: building a `Response` wraps the body in a `ReadableStream`, and a server then reads it back
 * out of that stream; on Node that pair cost about a tenth of a token request (bench/RESULTS.md,
 * run F). `Gatehouse.fetch` turns every reply into a `Response` ({@link toResponse}); a server
 * adapter that calls `Gatehouse.answer` instead can write the status, headers and text directly
 * (the Node bridge's `sendWebResponse` does).
 */
export class Reply {
  /**
   * Marks replies across copies of this module (an adapter may load the ESM build and the host the
   * CJS one), where `instanceof` would fail.
   */
  readonly [REPLY] = true;

  /**
   * @param status HTTP status code.
   * @param headers Header fields; mutable, like a `Response`'s (CORS headers are added later).
   * @param body The body text (sent as UTF-8), or `null` for none.
   */
  constructor(
    readonly status: number,
    readonly headers: Headers,
    readonly body: string | null,
  ) {}
}

/** What Gatehouse answers with: a {@link Reply} for text it built itself, else a `Response`. */
export type Answer = Response | Reply;

/** Whether `answer` is a {@link Reply} (of any copy of this module) rather than a `Response`. */
export function isReply(answer: Answer): answer is Reply {
  return (answer as Partial<Reply>)[REPLY] === true;
}

/** The Web `Response` for an answer (a `Response` is returned as it is). */
export function toResponse(answer: Answer): Response {
  if (!isReply(answer)) return answer;
  // Gatehouse's own fields go in as pairs: the `Response` checks each once, where a `Headers`
  // would first be filled, then iterated (sorted) into pairs all the same. (Bun would also copy a
  // `Headers` from its internal list, which a `ReplyHeaders` still keeping a list has empty.)
  const listed = replyFields(answer.headers);
  return new Response(answer.body, {
    status: answer.status,
    headers: listed === undefined ? answer.headers : fieldPairs(listed),
  });
}

/** The same answer without its body, for `HEAD` (RFC 9110 §9.3.2). */
export function withoutBody(answer: Answer): Answer {
  return isReply(answer) ? new Reply(answer.status, answer.headers, null) : new Response(null, answer);
}
