import { type ConnectedApp, connectedApps, revokeApp } from './account/connected-apps.js';
import { authApiRoutes } from './auth-api/routes.js';
import type { Awaitable } from './awaitable.js';
import { type Context, toContext } from './context.js';
import { ConfigurationError, errorAnswer, oauthError, UsageError } from './errors.js';
import type { ResolvedOptions, SharedResources } from './feature.js';
import { isPreflight, preflightResponse, withCors } from './http/cors.js';
import { DeploymentWarnings } from './http/deployment-warnings.js';
import { instanceDispatcher } from './http/dispatch.js';
import { type Answer, toResponse } from './http/reply.js';
import { notFound, type Route, Router } from './http/router.js';
import type { CibaApi } from './oauth2/ciba/feature.js';
import { finishInteraction, interactionDetails } from './oauth2/interaction/interactions-api.js';
import { interactionRoutes } from './oauth2/interaction/routes.js';
import type { Interactions } from './oauth2/interaction/types.js';
import { authorizationServerMetadata } from './oauth2/metadata.js';
import { oauth2Routes } from './oauth2/routes.js';
import { oidcRoutes } from './oidc/routes.js';
import type { GatehouseOptions } from './options.js';
import { authenticateRequest, authenticationPlan } from './protect/authenticate.js';
import { attachInternals } from './protect/instance-internals.js';
import type { AuthenticateOptions, AuthenticationResult, Caller } from './protect/types.js';
import { resolveOptions } from './resolve-options.js';
import {
  listGrants,
  type RevokeGrantOptions,
  revokeUserGrant,
  type UserGrant,
} from './revocation/user-grants.js';
import type { RevokeUserOptions } from './revocation/user-revocation.js';
import { deleteUser, revokeUser, signOut } from './session/ending.js';
import { sessionRoutes } from './session/routes.js';
import { sessionUser } from './session/session-user.js';
import { listSessions, revokeSession, type UserSession } from './session/user-sessions.js';
import { importKeyMaterial, keySetOf } from './tokens/keys.js';
import { StoredKeyring } from './tokens/rotation/keyring.js';
import type { SigningKeys } from './tokens/rotation/signing-keys.js';

/** One Gatehouse instance (one issuer). */
export interface Gatehouse {
  /** `{base_url}`, e.g. `http://localhost:3000/demo`. */
  readonly issuer: string;
  /** The instance path, e.g. `/demo` (empty for an issuer at the origin root). */
  readonly basePath: string;
  /**
   * Answers every Gatehouse route below {@link basePath}, plus the RFC 8414 metadata at
   * `/.well-known/oauth-authorization-server{basePath}` and the OpenID Provider metadata at
   * `/.well-known/openid-configuration{basePath}`. Unknown paths get 404 JSON. Never rejects:
   * bad input gets a 4xx, a failing store a 503, a bug a bare 500. (Server adapters get the same
   * answers without building a `Response` through `answerOf` of `@gatehousejs/core/adapter`.)
   */
  fetch(request: Request): Promise<Response>;
  /** Whether {@link fetch} has a route for this URL (adapters use it to fall through to the host). */
  handles(url: URL | string): boolean;
  /** Resolves once keys are imported; rejects with the configuration problem if they cannot be. */
  ready(): Promise<void>;
  /** The RFC 8414 metadata document. */
  metadata(): Record<string, unknown>;
  /**
   * Who calls one of the host's own REST operations, by the schemes it accepts: a bearer
   * access token (either family, checked against `scope`) and/or the session cookie (counted only
   * from the instance's origin or an allowed origin; cross-site state-changing requests get 403).
   * Resolves to the caller, or to the ready 400/401/403 (or 503) response to send as is; never
   * rejects except with `TypeError` for options naming no or unknown schemes. See `defineOperations`
   * for a whole route table with CORS. (Server adapters get the result without waiting when it is
   * known at once through `withAuthentication` of `@gatehousejs/core/adapter`.)
   */
  authenticate(request: Request, options: AuthenticateOptions): Promise<AuthenticationResult>;
  /**
   * Adds the CORS headers for the request's `Origin` to a response of the host's own API:
   * `Vary: Origin` always, and for an allowed origin (the issuer's, `cors.allowedOrigins`, or a
   * client's `allowedOrigins`) its exact echo with `Access-Control-Allow-Credentials: true`.
   */
  cors(request: Request, response: Response): Promise<Response>;
  /**
   * The answer to a CORS preflight (`OPTIONS` with `Access-Control-Request-Method`) for an operation
   * accepting `methods`, or `undefined` when the request is no preflight.
   */
  preflight(request: Request, methods: readonly string[]): Promise<Response | undefined>;
  /**
   * Revokes everything issued to a user so far: call it when deleting a user, after a password
   * change, or on a suspected account compromise. Writes the user's mark ("everything issued before
   * now is revoked") to the grant store, kept for the longest lifetime of anything Gatehouse issues.
   * Once it resolves, on every instance sharing the store: the user's access tokens of both
   * families fail the bearer check (401 `invalid_token`) and introspect `active: false`; their
   * refresh tokens and authorization codes get `invalid_grant`; their sessions end (401). Anything
   * issued afterwards works, so the user (or a re-created user with the same id) can sign in again.
   *
   * Access tokens carry their issue time in whole seconds, so one issued in the same second as the
   * mark counts as revoked even if it was issued just after the call (a client retrying a second
   * later gets a working token); refresh tokens, codes and sessions are compared to the millisecond.
   * With `backchannelLogout`, the user's live sessions (those `listSessions` shows) are reported as
   * ended: their relying parties get logout tokens, after this resolves.
   * Emits `user.revoked`. Rejects with `ConfigurationError` when the grant store has no
   * `revokeSubject` (see the storage contract), with `TypeError` for an empty `userId`, and with
   * `StorageUnavailableError` when the store fails (nothing was revoked: retry).
   */
  revokeUser(userId: string, options?: RevokeUserOptions): Promise<void>;
  /**
   * Deletes a user the safe way: revokes everything issued to them first (`revokeUser` with reason
   * `deleted`, so their access tokens fail the bearer check at once, which never looks users up),
   * then calls `remove`, your deletion from your user store (e.g. `() => db.users.delete(id)`), and
   * emits `user.deleted`. Without `remove`, only the revocation and the event: delete the user
   * yourself afterwards. Rejects as `revokeUser` does (nothing removed: retry), or with what
   * `remove` rejects with (the user is revoked but not deleted: retry).
   */
  deleteUser(userId: string, remove?: () => unknown): Promise<void>;
  /**
   * The grants of a user that can still issue tokens ("connected apps"), most recently used first:
   * grant id, client id and name, scope, when the user authorized the client and when the client
   * last got tokens with it. Requires a grant store with `listUserRefreshTokens` (the memory,
   * Redis and PostgreSQL engines); rejects with `ConfigurationError` otherwise.
   */
  listGrants(userId: string): Promise<UserGrant[]>;
  /**
   * Revokes one grant of a user, from {@link listGrants}: its refresh tokens, codes and access tokens
   * stop working at once (401 `invalid_token`, `invalid_grant`), and the user's consent to its
   * client is forgotten (unless `forgetConsent: false`), so the client must ask again. Resolves
   * `false` (nothing changed) when the user has no live grant with that id, including another
   * user's grant id. Emits `grant.revoked`.
   */
  revokeGrant(userId: string, grantId: string, options?: RevokeGrantOptions): Promise<boolean>;
  /**
   * The user's live browser sessions ("where you're signed in"), most recently active first: the
   * session's public id (OIDC `sid`), sign-in time, last activity and when it ends. Listed from a
   * per-user index in the key-value store (every engine, no migration), bounded to the user's 50
   * most recent sign-ins; sessions created before this index existed are not listed. Rejects with
   * `TypeError` for an empty `userId`.
   */
  listSessions(userId: string): Promise<UserSession[]>;
  /**
   * Ends one session of a user, by its `sessionId` from {@link listSessions}: its cookie stops
   * working at once (the next request is signed out). Resolves `false` (nothing changed) for an
   * unknown id, another user's session or one already ended. Emits `session.revoked`; with
   * `backchannelLogout`, the session's relying parties get logout tokens. To end every
   * session (and token) of the user, use {@link revokeUser}.
   */
  revokeSession(userId: string, sessionId: string): Promise<boolean>;
  /**
   * The applications that hold access for a user ("connected apps"), one per client, most recently
   * used first: client id and name, the scopes its grants hold, since when, when it last got
   * tokens. What the built-in page at `{base}/account/apps` shows, for a host that renders its own.
   * Requires a grant store with `listUserRefreshTokens` (the memory, Redis and PostgreSQL engines);
   * rejects with `ConfigurationError` otherwise, with `TypeError` for an empty `userId`.
   */
  connectedApps(userId: string): Promise<ConnectedApp[]>;
  /**
   * Revokes a user's access given to one application (every grant of the user to `clientId`): its
   * refresh tokens and codes get `invalid_grant` at once, its access tokens fail the bearer check
   * (at once with pushed revocations, on every instance sharing the store), and the user's consent
   * to it is forgotten, so it must ask again. Resolves the number of grants revoked (0: it held no
   * access, nothing changed). Emits `grant.revoked` per grant and `consent.withdrawn`.
   */
  revokeApp(userId: string, clientId: string): Promise<number>;
  /**
   * The host's side of sign-in and consent (`interactions` options, docs/own-sign-in.md): read what
   * an authorization request asks of the user on the host's page (`details`), and hand back the
   * sign-in and consent (`finish`), after which the browser resumes and the client gets its code.
   */
  readonly interactions: Interactions;
  /**
   * Backchannel authentication (CIBA, `ciba` option, docs/ciba.md) for a host rendering its own
   * approval screen instead of `{base}/approvals`: list a user's pending requests, approve or deny
   * one for them. Without the `ciba` option every method rejects with `ConfigurationError`
   * (`ERR_CONFIG_MISSING_OPTION`).
   */
  readonly ciba: CibaApi;
  /**
   * Ends Gatehouse's own session of the browser that sent `request` (if any) and resolves to the
   * `Set-Cookie` header value that expires its cookie: call it when the user signs out of the host,
   * so that nothing signed in survives (the host's session is the source of truth). Emits
   * `session.ended` when there was a session (with `backchannelLogout`, its relying parties get
   * logout tokens, after the answer). Never rejects for a request without a session.
   */
  endSession(request: Request): Promise<string>;
  /**
   * The stored signing keys (`keyRotation` option): rotate now, revoke a key, list them. See
   * "Keys and rotation" in the docs. Without `keyRotation` every method rejects with
   * `ConfigurationError` (`ERR_CONFIG_MISSING_OPTION`).
   */
  readonly keys: SigningKeys;
}

/** Every route of an instance (below its base path, plus the origin-root aliases). */
export function instanceRoutes(resolved: ResolvedOptions): Route[] {
  return [
    ...oauth2Routes(resolved),
    ...oidcRoutes(resolved.features.discovery, resolved.dpop, resolved.sessions),
    ...authApiRoutes(resolved.authApi),
    ...sessionRoutes(resolved),
    ...interactionRoutes(resolved),
    ...resolved.features.routes,
  ];
}

/** Creates an instance. Throws `ConfigurationError` for unusable options. */
export function createGatehouse(options: GatehouseOptions): Gatehouse {
  return buildGatehouse(options);
}

/** {@link createGatehouse}, drawing on resources shared with other instances (`createGatehouseHost`). */
export function buildGatehouse(options: GatehouseOptions, shared?: SharedResources): Gatehouse {
  const resolved = resolveOptions(options, shared);
  let keyring: StoredKeyring | undefined;
  const contextPromise: Promise<Context> = (async () => {
    const algorithm = options.algorithm ?? 'ES256';
    const rotation = resolved.keyRotation;
    const fixed = await importKeyMaterial(
      options.keys,
      algorithm,
      options.signers ?? [],
      rotation?.algorithms,
    );
    if (!rotation) return toContext(resolved.core, keySetOf(algorithm, [fixed]));
    const stored = new StoredKeyring({
      kv: resolved.storage.kv,
      settings: rotation,
      issuer: resolved.issuer,
      algorithm,
      fixed,
      now: resolved.clock.now,
      emit: resolved.emit,
      logger: resolved.logger,
      verifiedTokens: resolved.tokens.verified,
    });
    await stored.start();
    keyring = stored;
    return toContext(resolved.core, () => stored.current);
  })();
  contextPromise.catch((error) => resolved.logger.error('gatehouse: keys could not be imported', error));
  // What observes session ends (back-channel logout) signs with the keys: it runs once they are in.
  resolved.sessions.start(contextPromise);
  resolved.storedKeys.settle(contextPromise.then(() => keyring));
  // Once the keys are in, requests take the context without an await (a tick on every request).
  let readyContext: Context | undefined;
  contextPromise
    .then((ctx) => {
      readyContext = ctx;
    })
    .catch(() => {});
  const router = new Router(resolved.site.basePath, instanceRoutes(resolved));
  const dispatch = instanceDispatcher(resolved);
  const deployment = new DeploymentWarnings(
    resolved.issuer,
    resolved.site.origin,
    resolved.site.basePath,
    resolved.logger,
    (prefix) => router.reaches(prefix),
  );

  /** The matched route's answer; throws (rather than rejects) what it refuses at once. */
  const route = (request: Request): Promise<Answer> => {
    let url: URL;
    try {
      url = new URL(request.url);
    } catch {
      throw oauthError('invalid_request', 'The request URL is not valid.');
    }
    deployment.checkOrigin(request.url);
    // Once the keys are in, no promise waits for them (a turn of the microtask queue per request).
    const ctx = readyContext;
    if (ctx === undefined) return contextPromise.then((ready) => routeIn(ready, request, url));
    return routeIn(ctx, request, url);
  };

  const routeIn = (ctx: Context, request: Request, url: URL): Promise<Answer> => {
    const match = router.match(url.pathname);
    if (!match) {
      deployment.strayRequest(url.pathname);
      throw notFound();
    }
    return dispatch(match.route, request, ctx, url);
  };

  /** Never rejects: anything thrown becomes its error answer. */
  const answer = async (request: Request): Promise<Answer> => {
    try {
      return await route(request);
    } catch (error) {
      return errorAnswer(error, resolved.logger, undefined, request);
    }
  };

  resolved.features.bind(answer);

  /** The keyring of `keyRotation`, once the keys are in; rejects without the option. */
  const storedKeys = async (): Promise<StoredKeyring> => {
    await contextPromise;
    if (!keyring)
      throw new ConfigurationError(
        'keys: the stored signing keys need the keyRotation option (keys of `keys` rotate by configuration).',
        { code: 'ERR_CONFIG_MISSING_OPTION', option: 'keyRotation' },
      );
    return keyring;
  };

  /** `gatehouse.ciba` on the ready context; rejects without the `ciba` option. */
  const cibaNow = async (): Promise<CibaApi> => {
    const ctx = readyContext ?? (await contextPromise);
    const api = resolved.features.ciba;
    if (!api)
      throw new ConfigurationError('ciba: backchannel authentication needs the ciba option (`ciba: {}`).', {
        code: 'ERR_CONFIG_MISSING_OPTION',
        option: 'ciba',
      });
    return api(ctx);
  };

  const authenticated = (caller: Caller): AuthenticationResult => ({ ok: true, caller });
  const refused = (error: unknown, request?: Request): AuthenticationResult => ({
    ok: false,
    response: toResponse(errorAnswer(error, resolved.logger, undefined, request)),
  });
  const authenticateNow = (
    request: Request,
    options: AuthenticateOptions,
  ): Awaitable<AuthenticationResult> => {
    const plan = authenticationPlan(options); // a programming error throws rather than becoming a 500 response
    const ctx = readyContext;
    if (ctx === undefined) return contextPromise.then(() => authenticateNow(request, options), refused);
    let caller: Awaitable<Caller>;
    try {
      caller = authenticateRequest(ctx, resolved.dpop, request, plan);
    } catch (error) {
      deployment.checkOrigin(request.url);
      return refused(error, request);
    }
    if (!(caller instanceof Promise)) return { ok: true, caller };
    // The origin is compared off the fast path only: a token verified before and answered at once
    // had its origin compared on its first check, and reading the URL of an adapter's light
    // request would build it, which the bearer check never needs.
    deployment.checkOrigin(request.url);
    // The debug log names the request; without it, no closure on the bearer check's path.
    return caller.then(
      authenticated,
      ctx.logger.debug ? (error: unknown) => refused(error, request) : refused,
    );
  };

  let lastHandled: { readonly href: string; readonly handled: boolean } | undefined;
  const instance: Gatehouse = {
    issuer: resolved.issuer,
    basePath: resolved.site.basePath,
    // Methods never use `this`: hosts pass them around unbound (`export const GET = g.fetch`).
    async fetch(request) {
      return toResponse(await answer(request));
    },
    async authenticate(request, options) {
      return authenticateNow(request, options);
    },
    async cors(request, response) {
      try {
        return await withCors(resolved, request, response);
      } catch (error) {
        return toResponse(errorAnswer(error, resolved.logger));
      }
    },
    async preflight(request, methods) {
      if (!isPreflight(request)) return undefined;
      try {
        return await preflightResponse(resolved, resolved.cors, request, methods);
      } catch (error) {
        return toResponse(errorAnswer(error, resolved.logger));
      }
    },
    handles(input) {
      if (typeof input !== 'string') return router.match(input.pathname) !== undefined;
      // Adapters ask this of every request's URL before answering it, and a server sees the same
      // few URLs again and again: the last one's answer is kept (routes never change).
      if (input === lastHandled?.href) return lastHandled.handled;
      const handled = router.match(new URL(input).pathname) !== undefined;
      lastHandled = { href: input, handled };
      return handled;
    },
    async ready() {
      await contextPromise;
    },
    metadata() {
      return authorizationServerMetadata(resolved, resolved.features.discovery);
    },
    revokeUser(userId, options) {
      return revokeUser(resolved, userId, options);
    },
    deleteUser(userId, remove) {
      return deleteUser(resolved, userId, remove);
    },
    listGrants(userId) {
      return listGrants(resolved, userId);
    },
    revokeGrant(userId, grantId, options) {
      return revokeUserGrant(resolved, userId, grantId, options);
    },
    connectedApps(userId) {
      return connectedApps(resolved, userId);
    },
    revokeApp(userId, clientId) {
      return revokeApp(resolved, userId, clientId);
    },
    async listSessions(userId) {
      return listSessions(readyContext ?? (await contextPromise), userId);
    },
    async revokeSession(userId, sessionId) {
      await (readyContext ?? contextPromise);
      return revokeSession(resolved, userId, sessionId);
    },
    async endSession(request) {
      const ctx = readyContext ?? (await contextPromise);
      return signOut(ctx, resolved.sessions, request, await sessionUser(ctx, request));
    },
    keys: {
      async rotate(options) {
        return (await storedKeys()).rotate(options);
      },
      async revoke(kid) {
        if (typeof kid !== 'string' || kid === '')
          throw new UsageError(
            'keys.revoke: expected the kid of a stored key.',
            'ERR_INVALID_ARGUMENT',
            'kid',
          );
        return (await storedKeys()).revoke(kid);
      },
      async list() {
        return (await storedKeys()).list();
      },
    },
    ciba: {
      async pending(userId) {
        return (await cibaNow()).pending(userId);
      },
      async approve(userId, requestId, approval) {
        return (await cibaNow()).approve(userId, requestId, approval);
      },
      async deny(userId, requestId) {
        return (await cibaNow()).deny(userId, requestId);
      },
    },
    interactions: {
      async details(requestOrId, id) {
        return interactionDetails(readyContext ?? (await contextPromise), resolved, requestOrId, id);
      },
      async finish(request, result, id) {
        return finishInteraction(readyContext ?? (await contextPromise), resolved, request, result, id);
      },
    },
  };
  return attachInternals(instance, {
    answer,
    authenticateNow,
    cors: {
      preflight: (request, methods) => preflightResponse(resolved, resolved.cors, request, methods),
      apply: (request, answer) => withCors(resolved, request, answer),
    },
    logger: resolved.logger,
    mountedAt: (mountPath) => deployment.mountedAt(mountPath),
  });
}
