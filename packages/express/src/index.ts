/**
 * `@gatehousejs/express`: mounts a Gatehouse instance in an Express 5 app, and protects the
 * host's own routes. It only translates between Express and Web `Request`/`Response`, through the
 * shared Node bridge of `@gatehousejs/core/node`.
 * @packageDocumentation
 */

import {
  type Authenticator,
  answerOf,
  checkMountPath,
  type Servable,
  withAuthentication,
} from '@gatehousejs/core/adapter';
import {
  frameworkHeaderRequest,
  frameworkRequestOptions,
  readGatehouseRequest,
  sendWebResponse,
  toGatehouseRequest,
  toWebRequest,
  webRequestUrl,
} from '@gatehousejs/core/node';
import type { AuthenticateOptions, Caller, OperationsHandler } from '@gatehousejs/core/protect';
import type { NextFunction, Request, RequestHandler, Response } from 'express';

/** What {@link requireAuth} needs of an instance (a `Gatehouse`). */
export type { Authenticator };

declare global {
  namespace Express {
    interface Locals {
      /** The caller, set by `requireAuth` of `@gatehousejs/express`. */
      auth?: Caller;
    }
  }
}

/**
 * The Web `Request` for an Express request, a platform `Request` (`new Request(r)`, `fetch(r)` and
 * `instanceof Request` work as for any other): the public URL from `req.protocol` and `req.host`
 * (which honour the app's `trust proxy` setting; `X-Forwarded-*` is never read here), the mount
 * path put back from `req.baseUrl`, the client address from `req.ip` (also `trust proxy`-aware;
 * read as the request is built), and the body streamed, or re-encoded when a body parser already
 * consumed it (`req.rawBody` is used when a parser's `verify` hook kept the raw bytes). The
 * middlewares below build their requests the same way (`frameworkRequestOptions`).
 */
export function toRequest(req: Request, res?: Response): globalThis.Request {
  return toWebRequest(req, requestOptions(req, res));
}

/** The bridge's options for an Express request (see {@link toRequest}). */
function requestOptions(req: Request, res: Response | undefined) {
  return frameworkRequestOptions(req, { mountPath: req.baseUrl, body: preParsedBody(req), response: res });
}

/** What a body parser that ran before us left (`req.rawBody` if its `verify` hook kept it). */
function preParsedBody(req: Request) {
  return { value: req.body, raw: (req as { rawBody?: Uint8Array | string }).rawBody };
}

/**
 * Middleware answering every route of `instance` (e.g. `app.use('/demo', gatehouse(instance))` for
 * an issuer `https://host/demo`); any other request falls through to the next handler.
 */
export function gatehouse(instance: Servable): RequestHandler {
  return (req: Request, res: Response, next: NextFunction) => {
    const options = requestOptions(req, res);
    let handled: boolean;
    try {
      checkMountPath(instance, req.baseUrl);
      handled = instance.handles(webRequestUrl(req, options));
    } catch (error) {
      next(error);
      return;
    }
    if (!handled) {
      next();
      return;
    }
    // Only now is the body touched: a small one is read into memory (cheaper than a stream).
    readGatehouseRequest(req, options)
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
    // The bridge's light request: the table checks it, and an operation's handler gets the real
    // `Request` made from it (only then, so a refused call never builds one).
    handler(toGatehouseRequest(req, requestOptions(req, res)))
      .then((response) => (response ? sendWebResponse(res, response) : next()))
      .catch(next);
  };
}

/**
 * Middleware that lets a request through only with valid credentials of one of `options.schemes`
 * (and, for bearer tokens, every scope of `options.scope`), putting the caller on `res.locals.auth`
 * (read it there, or with {@link getAuth}). Otherwise it sends Gatehouse's ready 401/403 answer
 * (RFC 6750 `WWW-Authenticate` included). It never reads the body, so body parsers may run before
 * or after it. A token verified before lets the request through in the same turn of the event loop.
 *
 * Why `res.locals` and not `req.auth`: `res.locals` is Express's own place for what middleware
 * hands on to later handlers, one fresh object per request, so nothing about Express's request
 * objects changes. A `req.auth` property added after Express swapped the request's prototype
 * costs ~3 % of a request (bench run H), and making it cheap took an accessor on Express's shared
 * request prototype, for every app in the process: not a library's call to make.
 */
export function requireAuth(instance: Authenticator, options: AuthenticateOptions): RequestHandler {
  return (req: Request, res: Response, next: NextFunction) => {
    // Authentication reads headers only: the body stream stays for the route, and the URL and
    // client address are worked out only if read (the bearer check reads neither).
    const request = frameworkHeaderRequest(req, req, req.baseUrl);
    const pending = withAuthentication(instance, request, options, (result) => {
      if (!result.ok) return sendWebResponse(res, result.response);
      res.locals.auth = result.caller;
      next();
    });
    pending?.catch(next);
  };
}

/**
 * The caller {@link requireAuth} let through, or `undefined` on a route it does not protect:
 * `res.locals.auth`, for code that holds only the request.
 */
export function getAuth(req: Request): Caller | undefined {
  return req.res?.locals.auth;
}
