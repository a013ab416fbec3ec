/**
 * `@gatehouse/express`: mounts a Gatehouse instance in an Express 5 app, and protects the
 * host's own routes. It only translates between Express and Web `Request`/`Response`, through the
 * shared Node bridge of `@gatehouse/core/node`.
 * @packageDocumentation
 */
import type { AuthenticateOptions, AuthenticationResult, Caller, OperationsHandler } from '@gatehouse/core';
import {
  answerOf,
  readWebRequest,
  type Servable,
  sendWebResponse,
  toWebRequest,
  webRequestUrl,
} from '@gatehouse/core/node';
import type { NextFunction, Request, RequestHandler, Response } from 'express';

/** What {@link requireAuth} needs of an instance. */
export interface Authenticator {
  authenticate(request: Request_, options: AuthenticateOptions): Promise<AuthenticationResult>;
}
type Request_ = globalThis.Request;

declare global {
  namespace Express {
    interface Request {
      /** The caller, set by `requireAuth` of `@gatehouse/express`. */
      auth?: Caller;
    }
  }
}

/**
 * The Web `Request` for an Express request: the public URL from `req.protocol` and `req.host`
 * (which honour the app's `trust proxy` setting; `X-Forwarded-*` is never read here), the mount
 * path put back from `req.baseUrl`, the client address from `req.ip` (also `trust proxy`-aware),
 * and the body streamed, or re-encoded when a body parser already consumed it (`req.rawBody` is
 * used when a parser's `verify` hook kept the raw bytes).
 */
export function toRequest(req: Request, res?: Response): Request_ {
  return toWebRequest(req, {
    ...publicLocation(req),
    body: preParsedBody(req),
    response: res,
  });
}

/** What a body parser that ran before us left (`req.rawBody` if its `verify` hook kept it). */
function preParsedBody(req: Request) {
  return { value: req.body, raw: (req as { rawBody?: Uint8Array | string }).rawBody };
}

/**
 * Where the request was addressed and who sent it, as Express (and its `trust proxy`) sees it.
 * Origin and address are looked up when first needed: a bearer check needs neither.
 */
function publicLocation(req: Request) {
  let origin: string | undefined;
  return {
    origin: () => (origin ??= `${req.protocol}://${req.host}`),
    mountPath: req.baseUrl,
    clientAddress: () => req.ip,
  };
}

/**
 * Middleware answering every route of `instance` (e.g. `app.use('/demo', gatehouse(instance))` for
 * an issuer `https://host/demo`); any other request falls through to the next handler.
 */
export function gatehouse(instance: Servable): RequestHandler {
  return (req: Request, res: Response, next: NextFunction) => {
    const location = publicLocation(req);
    let handled: boolean;
    try {
      handled = instance.handles(webRequestUrl(req, location));
    } catch (error) {
      next(error);
      return;
    }
    if (!handled) {
      next();
      return;
    }
    // Only now is the body touched: a small one is read into memory (cheaper than a stream).
    readWebRequest(req, { ...location, body: preParsedBody(req), response: res })
      .then((request) => answerOf(instance, request))
      .then((response) => sendWebResponse(res, response))
      .catch(next);
  };
}

/** What {@link gatehouse} needs of an instance (`answer` is used when present). */
export type { Servable };

/**
 * Middleware running the host's protected REST operations (`defineOperations(instance, {...})`):
 * it answers the paths of the table and falls through for every other request, body untouched.
 * Mount it like the instance (`app.use('/demo', operations(api))`).
 */
export function operations(handler: OperationsHandler): RequestHandler {
  return (req: Request, res: Response, next: NextFunction) => {
    handler(toRequest(req, res))
      .then((response) => (response ? sendWebResponse(res, response) : next()))
      .catch(next);
  };
}

/**
 * Middleware that lets a request through only with valid credentials of one of `options.schemes`
 * (and, for bearer tokens, every scope of `options.scope`), putting the caller on `req.auth`.
 * Otherwise it sends Gatehouse's ready 401/403 answer (RFC 6750 `WWW-Authenticate` included).
 * It never reads the body, so body parsers may run before or after it.
 */
export function requireAuth(instance: Authenticator, options: AuthenticateOptions): RequestHandler {
  return (req: Request, res: Response, next: NextFunction) => {
    // Authentication reads headers only: the body stream stays for the route.
    const request = toWebRequest(req, { ...publicLocation(req), ignoreBody: true });
    instance
      .authenticate(request, options)
      .then((result) => {
        if (!result.ok) return sendWebResponse(res, result.response);
        req.auth = result.caller;
        next();
      })
      .catch(next);
  };
}
