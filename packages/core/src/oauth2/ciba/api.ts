import type { AuthorizationDetail } from '../../tokens/authorization-details.js';

/*
 * The host's side of backchannel authentication (CIBA): what `gatehouse.ciba` offers a host that
 * renders its own approval screen (a mobile app, its own page) instead of `{base}/approvals`.
 */

/** A pending backchannel authentication request, as the user should see it before deciding. */
export interface CibaPendingRequest {
  /** What {@link CibaApi.approve} and {@link CibaApi.deny} take (128 random bits; no credential). */
  readonly requestId: string;
  /** The client asking. `name` defaults to the id. */
  readonly client: { readonly id: string; readonly name: string };
  /** The `binding_message` to show, for the user to compare with the one on the client's screen. */
  readonly bindingMessage?: string;
  /** The scopes asked for. */
  readonly scopes: readonly string[];
  /** RFC 8707 resources asked for; empty: the instance's own API. */
  readonly resources: readonly string[];
  /** RFC 9396 `authorization_details`, when the request carries them. */
  readonly authorizationDetails?: readonly AuthorizationDetail[];
  /** When it was made and when it expires (epoch milliseconds). */
  readonly createdAt: number;
  readonly expiresAt: number;
}

/** How the user who approves authenticated (carried into the ID token). All optional. */
export interface CibaApproval {
  /** When the user authenticated (epoch milliseconds, `auth_time`). Default: now. */
  readonly authTime?: number;
  /** Authentication context class reference (`acr`). */
  readonly acr?: string;
  /** Authentication methods references (`amr`, RFC 8176). */
  readonly amr?: readonly string[];
}

/**
 * `gatehouse.ciba`: list a user's pending requests, and decide one for them. The host authenticates
 * the user first (its session): these methods trust the `userId` they are given, and only ever
 * decide that user's requests. Without the `ciba` option every method rejects with
 * `ConfigurationError` (`ERR_CONFIG_MISSING_OPTION`).
 */
export interface CibaApi {
  /** The user's pending, unexpired requests, oldest first. */
  pending(userId: string): Promise<CibaPendingRequest[]>;
  /**
   * Approves one of the user's pending requests: `true` when this call decided it, `false` when
   * it is not (or no longer) one of the user's pending requests (expired, decided meanwhile: of
   * two decisions racing exactly one wins). A ping client is then told (CIBA §10.2).
   */
  approve(userId: string, requestId: string, approval?: CibaApproval): Promise<boolean>;
  /** Denies one of the user's pending requests; `true` when this call decided it. */
  deny(userId: string, requestId: string): Promise<boolean>;
}
