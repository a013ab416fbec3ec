import type { Awaitable } from '../awaitable.js';
import type { Context } from '../context.js';
import type { DpopChecks } from '../dpop/proof.js';
import { UsageError } from '../errors.js';
import { bearerCredentials, dpopCredentials } from '../http/bearer.js';
import { sessionCookieReaches } from '../session/session-cookie.js';
import { type BearerResource, bearerCaller } from './bearer-scheme.js';
import { credentialsRequired, type ResourceChallenge, subjectNotAccepted } from './challenge.js';
import { dpopCaller } from './dpop-scheme.js';
import { sessionCaller } from './session-scheme.js';
import type { AuthenticateOptions, AuthScheme, Caller } from './types.js';

const SCHEMES: ReadonlySet<AuthScheme> = new Set(['bearer', 'session']);

/**
 * Who calls a protected REST operation, by the schemes the operation
 * declares. A bearer token in the `Authorization` header decides whenever the operation accepts
 * bearer tokens, even if a session cookie is sent too (the cookie is then ignored, valid or not).
 * Otherwise the session cookie is tried. Throws (or rejects with) the ready answer as a
 * {@link ProtocolError}: 400/401 with a `WWW-Authenticate` challenge, 403 for missing scope or a
 * refused cross-site session request. Throws `UsageError` (a `TypeError`) for options that name no or unknown
 * schemes (a programming error), unless the caller validated them already (`accepted`). The caller of a token verified before comes back synchronously
 * when it can (see `bearerCaller`).
 */
export function authenticateRequest(
  ctx: Pick<
    Context,
    | 'issuer'
    | 'site'
    | 'clock'
    | 'logger'
    | 'storage'
    | 'clients'
    | 'users'
    | 'keys'
    | 'tokens'
    | 'limits'
    | 'session'
  >,
  dpop: DpopChecks,
  request: Request,
  options: AuthenticateOptions,
  accepted: Accepted = acceptedSchemes(options),
): Awaitable<Caller> {
  const { acceptsBearer, acceptsSession } = accepted;
  const scopes = requiredScopes(options.scope);
  const resource = declaredResource(options, scopes);
  if (acceptsBearer) {
    const credentials = bearerCredentials(request);
    if (credentials !== null) {
      const caller = bearerCaller(ctx, dpop, request, credentials, scopes, resource);
      // Not `andThen`: its callback would be a closure made on every request.
      return caller instanceof Promise
        ? caller.then((known) => withAcceptedSubject(ctx, known, options.subjects))
        : withAcceptedSubject(ctx, caller, options.subjects);
    }
    // RFC 9449 §7: a DPoP-bound token with its proof (looked for only when there is no bearer token).
    const dpopToken = dpopCredentials(request);
    if (dpopToken !== null) {
      return dpopCaller(ctx, dpop, request, dpopToken, scopes, resource).then((known) =>
        withAcceptedSubject(ctx, known, options.subjects),
      );
    }
  }
  if (options.subjects !== undefined && !options.subjects.includes('user')) {
    // Sessions are users: a clients-only operation accepts bearer tokens alone.
    throw credentialsRequired(ctx, acceptsBearer, undefined, resource?.challenge);
  }
  return sessionOrNothing(ctx, request, acceptsBearer, acceptsSession, resource?.challenge);
}

/**
 * The protected resource the options declare (RFC 8707 / RFC 9728), or `undefined` for the
 * instance's own API without metadata: the common case builds nothing.
 */
function declaredResource(
  options: AuthenticateOptions,
  scopes: readonly string[],
): BearerResource | undefined {
  const { resource, resourceMetadata } = options;
  if (resource === undefined && resourceMetadata === undefined) return undefined;
  return {
    ...(resource === undefined ? {} : { audience: resource }),
    challenge: { scope: scopes, ...(resourceMetadata === undefined ? {} : { resourceMetadata }) },
  };
}

/** `caller` if the operation accepts its kind of subject (`subjects`, default users only). */
function withAcceptedSubject(
  ctx: Pick<Context, 'issuer'>,
  caller: Caller,
  subjects: AuthenticateOptions['subjects'],
): Caller {
  const kind = caller.subject.kind;
  if (subjects === undefined ? kind !== 'user' : !subjects.includes(kind))
    throw subjectNotAccepted(ctx, kind);
  return caller;
}

async function sessionOrNothing(
  ctx: Pick<Context, 'issuer' | 'site' | 'clock' | 'logger' | 'storage' | 'clients' | 'users' | 'session'>,
  request: Request,
  acceptsBearer: boolean,
  acceptsSession: boolean,
  challenge: ResourceChallenge | undefined,
): Promise<Caller> {
  if (acceptsSession) {
    const caller = await sessionCaller(ctx, request, acceptsBearer);
    if (caller) return caller;
    const pathname = new URL(request.url).pathname;
    if (!sessionCookieReaches(ctx, pathname)) throw outsideCookiePath(ctx, pathname, acceptsBearer);
  }
  throw credentialsRequired(ctx, acceptsBearer, undefined, challenge);
}

/** Warnings of {@link outsideCookiePath} are logged once per path, for this many paths at most. */
const MAX_WARNED_PATHS = 16;
const warnedPaths = new Set<string>();

/**
 * The 401 of a session-scheme route the session cookie can never reach (a host route outside the
 * cookie's `Path`): the usual challenge, with a description that says why, and one warning in the
 * log, since it is a set-up mistake that would otherwise look like "not signed in".
 */
function outsideCookiePath(
  ctx: Pick<Context, 'issuer' | 'logger' | 'session'>,
  pathname: string,
  acceptsBearer: boolean,
) {
  const advice =
    `The session cookie is not sent to ${pathname}: its Path is ${ctx.session.cookiePath}. ` +
    'Set the session.cookiePath option to a prefix of both paths (e.g. "/").';
  if (warnedPaths.size < MAX_WARNED_PATHS && !warnedPaths.has(pathname) && pathname.length <= 256) {
    warnedPaths.add(pathname);
    ctx.logger.warn(
      `gatehouse: a route that accepts sessions is outside the session cookie's path. ${advice}`,
    );
  }
  return credentialsRequired(ctx, acceptsBearer, `Authentication is required for this operation. ${advice}`);
}

/** What a `schemes` list accepts, once validated (hosts pass the same list on every request). */
export interface Accepted {
  readonly acceptsBearer: boolean;
  readonly acceptsSession: boolean;
  /** The list as validated, to notice a list changed in place afterwards. */
  readonly schemes: readonly AuthScheme[];
}

const validated = new WeakMap<readonly AuthScheme[], Accepted>();

/** Validates the declared schemes; throws `UsageError` (a `TypeError`) for none or unknown ones. */
export function acceptedSchemes(options: AuthenticateOptions): Accepted {
  const schemes = options?.schemes;
  const known = Array.isArray(schemes) ? validated.get(schemes) : undefined;
  if (known && sameList(known.schemes, schemes)) return known;
  const accepted = validateSchemes(schemes);
  validated.set(schemes, accepted);
  return accepted;
}

/** Whether two lists hold the same entries in the same order (no callback: this runs per request). */
function sameList(a: readonly AuthScheme[], b: readonly AuthScheme[]): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

function validateSchemes(schemes: readonly AuthScheme[]): Accepted {
  if (!Array.isArray(schemes) || schemes.length === 0) {
    throw new UsageError(
      'authenticate: `schemes` must list at least one of "bearer", "session".',
      'ERR_INVALID_ARGUMENT',
      'schemes',
    );
  }
  for (const scheme of schemes) {
    if (!SCHEMES.has(scheme))
      throw new UsageError(
        `authenticate: unknown scheme ${JSON.stringify(scheme)}.`,
        'ERR_INVALID_ARGUMENT',
        'schemes',
      );
  }
  return {
    acceptsBearer: schemes.includes('bearer'),
    acceptsSession: schemes.includes('session'),
    schemes: [...schemes],
  };
}

const NO_SCOPES: readonly string[] = [];

function requiredScopes(scope: AuthenticateOptions['scope']): readonly string[] {
  if (scope === undefined) return NO_SCOPES;
  if (typeof scope === 'string') return scope.split(' ').filter(Boolean);
  return scope;
}
