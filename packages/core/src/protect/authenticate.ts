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
  plan: AuthenticationPlan,
): Awaitable<Caller> {
  const { acceptsBearer, scopes, resource } = plan;
  if (acceptsBearer) {
    const credentials = bearerCredentials(request);
    if (credentials !== null) {
      const caller = bearerCaller(ctx, dpop, request, credentials, scopes, resource);
      if (caller instanceof Promise) return caller.then((known) => withAcceptedSubject(ctx, known, plan));
      // The common case inline: a user, where the operation accepts users.
      return plan.acceptsUsers && caller.subject.kind === 'user'
        ? caller
        : withAcceptedSubject(ctx, caller, plan);
    }
    // RFC 9449 §7: a DPoP-bound token with its proof (looked for only when there is no bearer token).
    const dpopToken = dpopCredentials(request);
    if (dpopToken !== null) {
      return dpopCaller(ctx, dpop, request, dpopToken, scopes, resource).then((known) =>
        withAcceptedSubject(ctx, known, plan),
      );
    }
  }
  if (!plan.acceptsUsers) {
    // Sessions are users: a clients-only operation accepts bearer tokens alone.
    throw credentialsRequired(ctx, acceptsBearer, undefined, resource?.challenge);
  }
  return sessionOrNothing(ctx, request, acceptsBearer, plan.acceptsSession, resource?.challenge);
}

/** `caller` if the operation accepts its kind of subject (`subjects`, default users only). */
function withAcceptedSubject(ctx: Pick<Context, 'issuer'>, caller: Caller, plan: AuthenticationPlan): Caller {
  const kind = caller.subject.kind;
  if (kind === 'user' ? !plan.acceptsUsers : !plan.acceptsClients) throw subjectNotAccepted(ctx, kind);
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

/**
 * What an operation's {@link AuthenticateOptions} ask, worked out once per options object: hosts
 * and adapters pass the same object on every request (`requireAuth` closes over it), so the
 * schemes are validated, the scopes split and the declared resource built on its first request
 * only. A member replaced afterwards, or the schemes list changed in place, is noticed and the
 * options planned anew.
 */
export interface AuthenticationPlan {
  readonly acceptsBearer: boolean;
  readonly acceptsSession: boolean;
  /** `subjects` (default: users only) allows users; sessions are always users. */
  readonly acceptsUsers: boolean;
  /** `subjects` allows clients acting for themselves. */
  readonly acceptsClients: boolean;
  /** The scopes a token must hold (`scope`, split). */
  readonly scopes: readonly string[];
  /**
   * The protected resource the options declare (RFC 8707 / RFC 9728), or `undefined` for the
   * instance's own API without metadata.
   */
  readonly resource: BearerResource | undefined;
  /** The options it was made from, member by member, and the schemes as they were then. */
  readonly madeFrom: {
    readonly schemes: readonly AuthScheme[];
    readonly schemeList: readonly AuthScheme[];
    readonly scope: AuthenticateOptions['scope'];
    readonly resource: AuthenticateOptions['resource'];
    readonly resourceMetadata: AuthenticateOptions['resourceMetadata'];
    readonly subjects: AuthenticateOptions['subjects'];
  };
}

const plans = new WeakMap<AuthenticateOptions, AuthenticationPlan>();

/**
 * The plan of `options`; throws `UsageError` (a `TypeError`) for options that name no or unknown
 * schemes (a programming error).
 */
export function authenticationPlan(options: AuthenticateOptions): AuthenticationPlan {
  const plan = typeof options === 'object' && options !== null ? plans.get(options) : undefined;
  if (plan !== undefined) {
    // Compared here rather than in a helper: this runs on every protected request.
    const made = plan.madeFrom;
    let same =
      options.schemes === made.schemes &&
      options.scope === made.scope &&
      options.resource === made.resource &&
      options.resourceMetadata === made.resourceMetadata &&
      options.subjects === made.subjects &&
      made.schemes.length === made.schemeList.length;
    for (let i = 0; same && i < made.schemeList.length; i++) same = made.schemes[i] === made.schemeList[i];
    if (same) return plan;
  }
  const made = newPlan(options);
  plans.set(options, made);
  return made;
}

function newPlan(options: AuthenticateOptions): AuthenticationPlan {
  const schemes = options?.schemes;
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
  const { scope, resource, resourceMetadata, subjects } = options;
  const scopes =
    scope === undefined ? NO_SCOPES : typeof scope === 'string' ? scope.split(' ').filter(Boolean) : scope;
  return {
    acceptsBearer: schemes.includes('bearer'),
    acceptsSession: schemes.includes('session'),
    acceptsUsers: subjects === undefined || subjects.includes('user'),
    acceptsClients: subjects?.includes('client') === true,
    scopes,
    resource:
      resource === undefined && resourceMetadata === undefined
        ? undefined
        : {
            ...(resource === undefined ? {} : { audience: resource }),
            challenge: { scope: scopes, ...(resourceMetadata === undefined ? {} : { resourceMetadata }) },
          },
    madeFrom: { schemes, schemeList: [...schemes], scope, resource, resourceMetadata, subjects },
  };
}

const NO_SCOPES: readonly string[] = [];
