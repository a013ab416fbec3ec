import type { AuthorizationDetail } from '../../tokens/authorization-details.js';

/**
 * The public shapes of interactions (issue 29): how an authorization request hands sign-in and
 * consent to the host, and how the host hands the result back. See docs/own-sign-in.md.
 */

/**
 * A user the host has signed in: who (`sub`) and how. Returned by the `interactions.currentUser`
 * hook and given to `gatehouse.interactions.finish` as the sign-in result.
 */
export interface HostUser {
  /** The user's stable identifier: the `sub` of every token (1 to 255 characters). */
  readonly sub: string;
  /**
   * When the user authenticated with the host, in epoch **milliseconds** (`Date.now()` of the
   * sign-in, not of this request): the ID token's `auth_time`, checked against `max_age`. Required
   * from `currentUser`; in a `finish` result it defaults to now (right when the user has just
   * signed in). Never in the future.
   */
  readonly authTime?: number;
  /**
   * How the user authenticated (RFC 8176 `amr` values, e.g. `['pwd']`, `['pwd', 'otp']`,
   * `['hwk']`): the ID token's `amr`. At most 10 values of at most 32 characters.
   */
  readonly amr?: readonly string[];
  /** The authentication context class reached (`acr`, e.g. a level of assurance), at most 255 characters. */
  readonly acr?: string;
}

/** Which step an interaction asks of the host. */
export type InteractionStep = 'login' | 'consent';

/**
 * What an interaction asks: read it with `gatehouse.interactions.details(request)` on the page the
 * browser was sent to. Everything comes from the validated authorization request, stored on the
 * server: nothing here can be changed by the browser.
 */
export interface InteractionDetails {
  /** The interaction reference (the `interaction` query parameter of the host's page). */
  readonly id: string;
  /**
   * `login`: sign the user in (no sign-in yet, `prompt=login`, or one older than `max_age`).
   * `consent`: the signed-in user ({@link subject}) must allow the client the scopes and resources.
   */
  readonly step: InteractionStep;
  /**
   * What the sign-in is for: `authorize`, an authorization request (the browser then goes back to
   * the client); `device`, a device authorization (RFC 8628): the user signs in on the verification
   * page's behalf, then confirms the device there (only a `login` step, no consent in the result).
   */
  readonly flow: 'authorize' | 'device';
  /** The client asking. `name` defaults to the id; a first-party client never needs consent. */
  readonly client: { readonly id: string; readonly name: string; readonly firstParty: boolean };
  /**
   * The host the user goes back to (the redirect URI's host), which identifies a self-registered
   * client; for a `device` flow, the issuer's host (the verification page).
   */
  readonly redirectHost: string;
  /** The scopes asked for (maybe none). */
  readonly scopes: readonly string[];
  /** The resources (RFC 8707) asked for; empty: the instance's own API. */
  readonly resources: readonly string[];
  /** The request's `prompt` values (OpenID Connect Core §3.1.2.1), e.g. `['login']`. */
  readonly prompt: readonly string[];
  /** `max_age`, in seconds, when sent: a sign-in older than this must be done again. */
  readonly maxAge?: number;
  /** `login_hint`, when sent: prefill the sign-in form with it. */
  readonly loginHint?: string;
  /** `ui_locales` (BCP 47 tags, most preferred first), when sent. */
  readonly uiLocales: readonly string[];
  /** `acr_values` (requested authentication context classes, preferred first), when sent. */
  readonly acrValues: readonly string[];
  /**
   * The authorization details asked for (RFC 9396 `authorization_details`), each with what it
   * allows in words (its type's `describe`, in the language of `ui_locales` or the browser among
   * the instance's catalogs): show them on a consent page. Empty when none were asked for (absent
   * only from a Gatehouse older than rich authorization requests). The
   * consent is to all of them: the grant carries them as asked, or the user denies.
   */
  readonly authorizationDetails?: readonly {
    readonly type: string;
    readonly detail: AuthorizationDetail;
    readonly description: string;
  }[];
  /**
   * The user the interaction is bound to: for `consent`, the signed-in user (`finish` refuses a
   * result for another user); for `login`, the user an `id_token_hint` named, when one was sent (a
   * sign-in as another user gets the client `login_required` on resume, OpenID Connect Core §3.1.2.1:
   * sign in this user, or show the user that the application asked for someone else).
   */
  readonly subject?: string;
  /** When the reference expires (epoch ms). */
  readonly expiresAt: number;
}

/** The consent part of a result: what the user allowed, or that they refused. */
export type ConsentResult =
  | {
      /**
       * The scopes allowed: the requested ones (default) or some of them. A scope that was not
       * asked for is refused.
       */
      readonly scopes?: readonly string[];
      /** The resources allowed: the requested ones (default) or some of them. */
      readonly resources?: readonly string[];
      /** Remember the consent (one year) so the next request of this client for no more asks nothing. Default `true`. */
      readonly remember?: boolean;
    }
  | {
      /** The user refused: the client gets `access_denied`. */
      readonly denied: true;
      /** What the client is told (`error_description`). Default "The user denied the request." */
      readonly description?: string;
    };

/** What the host hands back with `gatehouse.interactions.finish`. */
export interface InteractionResult {
  /** The sign-in: required for a `login` step; for a `consent` step, if given, it must be the same user. */
  readonly login?: HostUser;
  /** The consent, when the host asked for it (a `consent` step, or both steps on one page). */
  readonly consent?: ConsentResult;
}

/** Where the browser goes next, after `finish`. */
export interface InteractionRedirect {
  /** The URL to send the browser to (303): Gatehouse's resume endpoint. */
  readonly location: string;
  /** The ready 303 response to it. */
  readonly response: Response;
}

/** `gatehouse.interactions`: the host's side of sign-in and consent. */
export interface Interactions {
  /**
   * What the interaction asks. `request` is the browser's request to the host's page (the reference
   * is its `interaction` query parameter, and the browser must be the one that started it); or
   * pass the reference itself (no browser check: use it only to look up, never to decide).
   * Rejects with {@link InteractionError} for an unknown, expired, used, finished or foreign one.
   */
  details(request: Request | string, id?: string): Promise<InteractionDetails>;
  /**
   * Finishes the interaction with the host's result; resolves to the redirect back to Gatehouse,
   * which then issues the code (or asks for consent next, or sends `access_denied`). `request` is
   * the browser's request (its cookie binds it to the browser that started the interaction); the
   * reference is its `interaction` query parameter unless `id` is given (e.g. read from a form).
   * Single use: a second `finish` rejects. Rejects with {@link InteractionError} (the result is
   * refused: wrong user, stale sign-in, a scope not asked for, …).
   */
  finish(request: Request, result: InteractionResult, id?: string): Promise<InteractionRedirect>;
}
