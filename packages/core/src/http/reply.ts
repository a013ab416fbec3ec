import { ListedHeaders } from './listed-headers.js';
import { fieldPairs, replyFields } from './reply-headers.js';

const REPLY: unique symbol = Symbol.for('gatehouse.reply') as never;
/** The key of `fieldsOf`'s view of a reply (`Symbol.for`: the Node bridge may be another copy of this module). */
const FIELDS_OF: unique symbol = Symbol.for('gatehouse.reply.fields') as never;

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
  /** The fields as Gatehouse keeps them: a list while it builds the reply, else a real `Headers`. */
  readonly #fields: Headers;

  /**
   * @param status HTTP status code.
   * @param headers Header fields; mutable, like a `Response`'s (CORS headers are added later).
   * @param body The body text (sent as UTF-8), or `null` for none.
   */
  constructor(
    readonly status: number,
    headers: Headers,
    readonly body: string | null,
  ) {
    this.#fields = headers;
  }

  /**
   * The header fields: a platform `Headers` (mutable, like a `Response`'s). Gatehouse keeps the
   * fields of its own replies in a list (`ReplyHeaders`); the real `Headers` is made on first read
   * here and holds them from then on.
   */
  get headers(): Headers {
    const fields = this.#fields;
    return fields instanceof ListedHeaders ? fields.toHeaders() : fields;
  }

  /** Gatehouse's own view of the fields (`fieldsOf`), without making a `Headers`. */
  [FIELDS_OF](): Headers {
    return this.#fields;
  }
}

/**
 * The header fields of an answer as Gatehouse changes them: a `Response`'s headers, or a reply's
 * own list while it is one (reading `Reply.headers` would make a real `Headers` for nothing).
 */
export function fieldsOf(answer: Answer): Headers {
  return isReply(answer) ? (answer as unknown as { [FIELDS_OF](): Headers })[FIELDS_OF]() : answer.headers;
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
  // would first be made, then iterated (sorted) into pairs all the same.
  const fields = fieldsOf(answer);
  const listed = replyFields(fields);
  return new Response(answer.body, {
    status: answer.status,
    headers: listed === undefined ? answer.headers : fieldPairs(listed),
  });
}

/** The same answer without its body, for `HEAD` (RFC 9110 §9.3.2). */
export function withoutBody(answer: Answer): Answer {
  return isReply(answer) ? new Reply(answer.status, fieldsOf(answer), null) : new Response(null, answer);
}
