/**
 * `@gatehouse/express`: mounts a Gatehouse instance in an Express 5 app, and protects the
 * host's own routes. It only translates between Express and Web `Request`/`Response`, through the
 * shared Node bridge of `@gatehouse/core/node`.
 * @packageDocumentation
 */

import { IncomingMessage } from 'node:http';
import {
  type AuthenticateOptions,
  type Authenticator,
  type Caller,
  type OperationsHandler,
  withAuthentication,
} from '@gatehouse/core';
import {
  answerOf,
  readWebRequest,
  type Servable,
  sendWebResponse,
  toWebRequest,
  webRequestUrl,
} from '@gatehouse/core/node';
import type { NextFunction, Request, RequestHandler, Response } from 'express';

/** What {@link requireAuth} needs of an instance (a `Gatehouse`). */
export type { Authenticator };

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
 * It never reads the body, so body parsers may run before or after it. A token verified before
 * lets the request through in the same turn of the event loop (see `withAuthentication`).
 */
export function requireAuth(instance: Authenticator, options: AuthenticateOptions): RequestHandler {
  return (req: Request, res: Response, next: NextFunction) => {
    // Authentication reads headers only: the body stream stays for the route.
    const request = toWebRequest(req, { ...publicLocation(req), ignoreBody: true });
    const pending = withAuthentication(instance, request, options, (result) => {
      if (!result.ok) return sendWebResponse(res, result.response);
      setCaller(req, result.caller);
      next();
    });
    pending?.catch(next);
  };
}

/** The callers put on requests, read and written through the `auth` accessor (see below). */
const callers = new WeakMap<object, unknown>();

/** The request prototype last seen to carry the accessor (Express sets it per app). */
let preparedPrototype: object | null = null;

/**
 * `req.auth = caller`, made cheap. Express swaps each request's prototype (`Object.setPrototypeOf`
 * to `app.request`), and V8 does not cache the hidden-class transition of a property added after
 * that: `req.auth = …` as an own property measured ~17,000 instructions per request, about 3 % of
 * a whole Express request (bench/RESULTS.md, run H). So `auth` is an accessor on Express's base
 * request prototype (the one every app's `app.request` inherits from, also across mounted sub-apps),
 * storing the value by request in a `WeakMap`. Reading and assigning `req.auth` behave as before,
 * for Gatehouse and for any other middleware; it is only not an own, enumerable property. Where the
 * chain has no such prototype, or someone defined `auth` there already, it stays a plain property.
 */
function setCaller(req: Request, caller: Caller): void {
  const prototype = Object.getPrototypeOf(req) as object | null;
  if (prototype !== preparedPrototype && prototype !== null) {
    installAuthAccessor(prototype);
    preparedPrototype = prototype;
  }
  req.auth = caller;
}

function installAuthAccessor(prototype: object): void {
  // Express's base request prototype is the last one before `IncomingMessage.prototype`.
  let base: object | undefined;
  let p: object | null = prototype;
  for (; p !== null && p !== IncomingMessage.prototype; p = Object.getPrototypeOf(p)) {
    if (Object.hasOwn(p, 'auth')) return; // defined by someone: leave it alone
    base = p;
  }
  if (p === null || base === undefined || !Object.isExtensible(base)) return;
  Object.defineProperty(base, 'auth', {
    configurable: true,
    enumerable: false,
    get(this: object) {
      return callers.get(this);
    },
    set(this: object, value: unknown) {
      callers.set(this, value);
    },
  });
}
