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
export function dispatch(
  route: Route,
  request: Request,
  instanceContext: Context,
  url: URL,
): Promise<Answer> {
  const telemetry = instanceContext.telemetry;
  if (!telemetry) return dispatchIn(route, request, requestContext(instanceContext, request), url);
  return telemetry.endpoint(route.path, request, (observation) => {
    let ctx = requestContext(instanceContext, request);
    if (observation) {
      const emit = ctx.emit;
      ctx = {
        ...ctx,
        emit: (event) => {
          observation.observe(event);
          emit(event);
        },
      };
    }
    return dispatchIn(route, request, ctx, url);
  });
}

/** Events of this request carry its client address (audit records); nothing is bound when no one listens. */
function requestContext(ctx: Context, request: Request): Context {
  return ctx.emitFor ? { ...ctx, emit: ctx.emitFor(request) } : ctx;
}

async function dispatchIn(route: Route, request: Request, ctx: Context, url: URL): Promise<Answer> {
  // Awaited rather than returned: an async function returning a promise resolves two turns later.
  if (!route.cors) return await answerRoute(route, request, ctx, url);
  if (!route.methods.OPTIONS && isPreflight(request)) {
    return await preflightResponse(ctx, request, Object.keys(route.methods));
  }
  let answer: Answer;
  try {
    answer = await answerRoute(route, request, ctx, url);
  } catch (error) {
    answer = errorAnswer(error, ctx.logger, undefined, request);
  }
  const withHeaders = withCors(ctx, request, answer);
  return withHeaders instanceof Promise ? await withHeaders : withHeaders;
}

/** The handler's answer (a 405 is thrown at once), without its body for `HEAD`. */
function answerRoute(route: Route, request: Request, ctx: Context, url: URL): Promise<Answer> {
  const { handler, head } = methodHandler(route, request.method.toUpperCase());
  const answer = handler(request, ctx, url);
  return head ? answer.then(withoutBody) : answer;
}
