import type { Context } from '../context.js';
import { errorAnswer } from '../errors.js';
import { isPreflight, preflightResponse, withCors } from './cors.js';
import { type Answer, withoutBody } from './reply.js';
import { methodHandler, type Route } from './router.js';

/**
 * Answers a request with the instance route the router matched: the method's handler (405 with
 * `Allow` for another method), `HEAD` without the body. On `cors` routes, preflights are answered
 * and every answer, errors included, gets the CORS headers: errors are converted here rather than
 * by the caller so that a browser can read them (e.g. `invalid_grant`).
 */
export async function dispatch(
  route: Route,
  request: Request,
  instanceContext: Context,
  url: URL,
): Promise<Answer> {
  // Events of this request carry its client address (audit records); nothing is bound when no one listens.
  const ctx = instanceContext.emitFor
    ? { ...instanceContext, emit: instanceContext.emitFor(request) }
    : instanceContext;
  if (!route.cors) return answerRoute(route, request, ctx, url);
  if (!route.methods.OPTIONS && isPreflight(request)) {
    return preflightResponse(ctx, request, Object.keys(route.methods));
  }
  let answer: Answer;
  try {
    answer = await answerRoute(route, request, ctx, url);
  } catch (error) {
    answer = errorAnswer(error, ctx.logger, undefined, request);
  }
  return withCors(ctx, request, answer);
}

async function answerRoute(route: Route, request: Request, ctx: Context, url: URL): Promise<Answer> {
  const { handler, head } = methodHandler(route, request.method.toUpperCase());
  const answer = await handler(request, ctx, url);
  return head ? withoutBody(answer) : answer;
}
