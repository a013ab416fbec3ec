import type { GrantType, Subject } from './storage/types.js';

/**
 * A security-relevant event. Carries identifiers, never a secret, token, code or password. A
 * `username` is as the client sent it, cut to `CREDENTIAL_LIMITS.maxUsernameLength` characters.
 */
export type GatehouseEvent =
  | {
      readonly type: 'login.succeeded';
      readonly userId: string;
      /** `interaction`: the host signed the user in (`gatehouse.interactions.finish`). */
      readonly via: 'login-page' | 'auth-api' | 'interaction';
    }
  /** An authorization request was handed to the host's page (`interactions.url`). */
  | { readonly type: 'interaction.started'; readonly clientId: string; readonly step: 'login' | 'consent' }
  /**
   * An interaction was refused: an unknown, expired or used reference, another browser, another
   * user, or a malformed result (`InteractionError` codes).
   */
  | { readonly type: 'interaction.refused'; readonly reason: string }
  | { readonly type: 'login.failed'; readonly username: string; readonly via: 'login-page' | 'auth-api' }
  | {
      readonly type: 'login.rate_limited';
      readonly username: string;
      readonly via: 'login-page' | 'auth-api';
    }
  | {
      readonly type: 'token.issued';
      readonly clientId?: string;
      /** Who the token speaks for: a user, or a client acting for itself. */
      readonly subject: Subject;
      /** The user, when the subject is one (`subject.userId`). */
      readonly userId?: string;
      /** The grant type, or `auth_api` for the Auth API. */
      readonly grantType: GrantType | 'auth_api';
    }
  | {
      readonly type: 'token.revoked';
      readonly clientId?: string;
      readonly kind: 'access_token' | 'refresh_token';
    }
  | { readonly type: 'code.replayed'; readonly clientId: string; readonly grantId: string }
  | { readonly type: 'refresh_token.reused'; readonly clientId: string; readonly grantId: string }
  /**
   * The user signed out (the logout page, RP-initiated logout, `gatehouse.endSession`);
   * `sessionId` is the session's public id (the OIDC `sid`), when it has one.
   */
  | { readonly type: 'session.ended'; readonly userId: string; readonly sessionId?: string }
  /** `gatehouse.revokeSession` ended one of the user's sessions (`sessionId` is its public id, the OIDC `sid`). */
  | { readonly type: 'session.revoked'; readonly userId: string; readonly sessionId: string }
  /**
   * A relying party took the logout token of an ended session (OpenID Connect Back-Channel Logout
   * 1.0 §2.8: it answered 200 or 204) at its `attempt`-th request: the session (`sessionId`, its
   * `sid`) ended there too.
   */
  | {
      readonly type: 'backchannel_logout.delivered';
      readonly clientId: string;
      readonly userId: string;
      readonly sessionId: string;
      readonly attempt: number;
    }
  /**
   * A logout request failed and is retried in `retryInMs`: `reason` is `timeout`, `unreachable`
   * (no connection, or the connection failed) or `status` (the relying party answered `status`:
   * a 5xx or 429).
   */
  | {
      readonly type: 'backchannel_logout.failed';
      readonly clientId: string;
      readonly userId: string;
      readonly sessionId: string;
      readonly attempt: number;
      readonly reason: 'timeout' | 'unreachable' | 'status';
      readonly status?: number;
      readonly retryInMs: number;
    }
  /**
   * A logout token was given up: its last attempt failed (`reason` as for `failed`), or at once
   * when retrying cannot help: `status` (another answer than 200, 204, 5xx or 429, e.g. 400: the
   * relying party refused the token), `redirect` (redirects are not followed), `refused_url` (the
   * URI or the address its host resolves to may not be reached: no SSRF), `queue_full` (the
   * client's share of queued logout requests, `backchannelLogout.maxQueuedPerClient`, or the
   * instance's is used up), `unsigned` (no key to sign it with).
   */
  | {
      readonly type: 'backchannel_logout.abandoned';
      readonly clientId: string;
      readonly userId: string;
      readonly sessionId: string;
      readonly attempt: number;
      readonly reason:
        | 'timeout'
        | 'unreachable'
        | 'status'
        | 'redirect'
        | 'refused_url'
        | 'queue_full'
        | 'unsigned';
      readonly status?: number;
    }
  /** The user allowed a client on the consent page; `scope` is what the consent now covers. */
  | {
      readonly type: 'consent.granted';
      readonly userId: string;
      readonly clientId: string;
      readonly scope: string;
    }
  /** The user denied a client on the consent page (the client gets `access_denied`). */
  | { readonly type: 'consent.denied'; readonly userId: string; readonly clientId: string }
  /** The user's consent to a client was forgotten (`revokeGrant`, unless `forgetConsent: false`). */
  | { readonly type: 'consent.withdrawn'; readonly userId: string; readonly clientId: string }
  /** `gatehouse.revokeUser` marked everything issued to the user so far as revoked. */
  | { readonly type: 'user.revoked'; readonly userId: string; readonly reason?: string }
  /**
   * `gatehouse.deleteUser` revoked everything issued to the user and the host's `remove` callback
   * resolved: hook it to delete what else the host keeps about the user.
   */
  | { readonly type: 'user.deleted'; readonly userId: string }
  /** `gatehouse.revokeGrant` revoked one of the user's grants ("connected apps"). */
  | {
      readonly type: 'grant.revoked';
      readonly userId: string;
      readonly clientId: string;
      readonly grantId: string;
    }
  /** A user allowed or denied a device authorization (RFC 8628) on the verification page. */
  | {
      readonly type: 'device.approved' | 'device.denied';
      readonly clientId: string;
      readonly userId: string;
    }
  /** A client asked for a user's approval by backchannel authentication (CIBA), in `mode`. */
  | {
      readonly type: 'ciba.requested';
      readonly clientId: string;
      readonly userId: string;
      readonly mode: 'poll' | 'ping';
    }
  /** A user allowed or denied a backchannel authentication request (approval page or host API). */
  | {
      readonly type: 'ciba.approved' | 'ciba.denied';
      readonly clientId: string;
      readonly userId: string;
    }
  /** The host's `ciba.notify` hook failed or did not finish in time: the request stays pending. */
  | { readonly type: 'ciba.notify_failed'; readonly clientId: string; readonly userId: string }
  /**
   * The ping callback of a decided request reached the client's notification endpoint (`sent`)
   * or did not after `attempts` attempts (`failed`); the client can still poll.
   */
  | {
      readonly type: 'ciba.ping_sent' | 'ciba.ping_failed';
      readonly clientId: string;
      readonly attempts: number;
    }
  /**
   * A fair share of a bounded store was used up (once per window and payer): `quota` names the
   * budget (`device-lookup`, `interaction`, `par`, `device-auth`, `reg`, …), `payer` who paid: a
   * client `network` (its address or its /24 or /48), a signed-in `user`, or `anonymous` callers
   * together (the device flow's failed lookups). docs/security.md, "Stored state".
   */
  | {
      readonly type: 'quota.reached';
      readonly quota: string;
      readonly payer: 'network' | 'user' | 'client' | 'anonymous';
    }
  /**
   * A client registered itself (RFC 7591), or deleted its registration (RFC 7592), or its
   * registration was `evicted` (deleted: its client id stops working) to make room in a full
   * registry for a registration from a lighter network (`dynamicRegistration.maxClients`).
   */
  | {
      readonly type: 'client.registered' | 'client.unregistered' | 'client.evicted';
      readonly clientId: string;
    }
  /**
   * A stored signing key (`keyRotation`) changed, in the process that wrote the change:
   * `published` (generated and in the JWKS; `signsFrom` says when it signs), `rotated`
   * (`keys.rotate()` brought its start forward to `signsFrom`), `revoked` (`keys.revoke(kid)`: out of
   * the JWKS, its tokens refused), `dropped` (retained long enough after it stopped signing).
   */
  | {
      readonly type:
        | 'signing_key.published'
        | 'signing_key.rotated'
        | 'signing_key.revoked'
        | 'signing_key.dropped';
      readonly kid: string;
      /** `ES256`, `EdDSA` or `RS256`. */
      readonly algorithm: string;
      /** When the key signs from (ISO 8601), for `published` and `rotated`. */
      readonly signsFrom?: string;
    }
  /**
   * The stored signing keys (`keyRotation`) read from storage were refused, and the keys known so
   * far stay in use: `tampered` (the record's MAC does not verify: a key, a revocation or a
   * `signsFrom` altered), `rolled_back` (a record older than one this process has seen, or one
   * whose MAC was stripped, was put back). `generation` is the refused record's.
   */
  | {
      readonly type: 'signing_keys.refused';
      readonly reason: 'tampered' | 'rolled_back';
      readonly generation?: string;
    }
  /**
   * A call of the admin API changed something (docs/admin-api.md): `operation` is its
   * `operationId` (`rotateKeys`, `revokeGrant`, …), `target` what it acted on (a `kid`, a client
   * id, a session or grant id), `userId` the user concerned, if any, and `actor` who called.
   */
  | {
      readonly type: 'admin.action';
      readonly operation: string;
      readonly target?: string;
      readonly userId?: string;
      readonly actor: AdminActor;
    }
  /**
   * A client failed to authenticate at the token, revocation, introspection or another endpoint
   * that authenticates clients. `clientId` is as presented (the client may not exist).
   */
  | {
      readonly type: 'client.authentication_failed';
      readonly clientId: string;
      /** The method the request used (`client_secret_basic`, `client_secret_post`, `private_key_jwt`, `none`). */
      readonly method: string;
      /** `unknown_client`, `method_not_registered` (the client is registered for `registeredMethod`), or `invalid_credentials`. */
      readonly reason: 'unknown_client' | 'method_not_registered' | 'invalid_credentials';
      readonly registeredMethod?: string;
    };

/** Who called the admin API: the token's client, and its subject (a user id, or the client's id). */
export interface AdminActor {
  readonly clientId?: string;
  readonly subject: string;
  readonly subjectType: 'user' | 'client';
}

/**
 * Where and when an event happened, added to every event by the instance (the second argument of
 * `onEvent`, and fields of every audit record).
 */
export interface EventContext {
  /** Epoch milliseconds, from the `now` option. */
  readonly time: number;
  /** The issuer of the instance that emitted the event. */
  readonly instance: string;
  /**
   * The client's network address (`rateLimit.clientAddress` of the request: what the adapter
   * recorded), when the event comes from a request and the address is known.
   */
  readonly clientAddress?: string;
}

/** Where Gatehouse writes diagnostics. `console` fits. */
export interface Logger {
  warn(message: string, ...details: unknown[]): void;
  error(message: string, ...details: unknown[]): void;
  /**
   * The debug log (option `debug`, or `GATEHOUSE_DEBUG=1`): one line per refused request, naming
   * the reason. Without it, `console.debug` is used when the debug log is on.
   */
  debug?(message: string, ...details: unknown[]): void;
}
