import type { Context } from '../context.js';
import { errorAnswer } from '../errors.js';
import type { GatehouseEvent } from '../events.js';
import { type CorsSettings, isPreflight, preflightResponse, withCors } from './cors.js';
import type { InstanceTelemetry } from './endpoint-telemetry.js';
import { type Answer, withoutBody } from './reply.js';
import { methodHandler, type Route } from './router.js';

/** What the dispatcher of one instance is built with (resolved once, at creation). */
export interface DispatchSettings {
  /** OpenTelemetry of the instance (`telemetry` option), unless it is off. */
  readonly telemetry: InstanceTelemetry | undefined;
  /**
   * The `emit` of one request, which adds its client address: the dispatcher puts it in the
   * request's context. `undefined` when nothing listens (no `onEvent`, no `audit`), so requests
   * bind nothing.
   */
  readonly emitFor: ((request: Request) => (event: GatehouseEvent) => void) | undefined;
  readonly cors: CorsSettings;
}

/** Answers a request with the route the router matched (see {@link instanceDispatcher}). */
export type Dispatch = (route: Route, request: Request, ctx: Context, url: URL) => Promise<Answer>;

/**
 * The dispatcher of an instance: answers a request with the instance route the router matched:
 * the method's handler (405 with `Allow` for another method), `HEAD` without the body. On `cors`
 * routes, preflights are answered and every answer, errors included, gets the CORS headers: errors
 * are converted here rather than by the caller so that a browser can read them (e.g.
 * `invalid_grant`).
 */
export function instanceDispatcher(settings: DispatchSettings): Dispatch {
  const { telemetry, emitFor, cors } = settings;
  /** Events of this request carry its client address (audit records); nothing is bound when no one listens. */
  const requestContext = emitFor
    ? (ctx: Context, request: Request): Context => ({ ...ctx, emit: emitFor(request) })
    : (ctx: Context): Context => ctx;

  const dispatchIn = async (route: Route, request: Request, ctx: Context, url: URL): Promise<Answer> => {
    // Awaited rather than returned: an async function returning a promise resolves two turns later.
    if (!route.cors) return await answerRoute(route, request, ctx, url);
    if (!route.methods.OPTIONS && isPreflight(request)) {
      return await preflightResponse(ctx, cors, request, Object.keys(route.methods));
    }
    let answer: Answer;
    try {
      answer = await answerRoute(route, request, ctx, url);
    } catch (error) {
      answer = errorAnswer(error, ctx.logger, undefined, request);
    }
    const withHeaders = withCors(ctx, request, answer);
    return withHeaders instanceof Promise ? await withHeaders : withHeaders;
  };

  if (!telemetry)
    return (route, request, ctx, url) => dispatchIn(route, request, requestContext(ctx, request), url);
  return (route, request, instanceContext, url) =>
    telemetry.endpoint(route.path, request, (observation) => {
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

/** The handler's answer (a 405 is thrown at once), without its body for `HEAD`. */
function answerRoute(route: Route, request: Request, ctx: Context, url: URL): Promise<Answer> {
  const { handler, head } = methodHandler(route, request.method.toUpperCase());
  const answer = handler(request, ctx, url);
  return head ? answer.then(withoutBody) : answer;
}
