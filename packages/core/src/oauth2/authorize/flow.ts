import type { ConsentOptions } from '../../options.js';
import type { InteractionSettings } from '../interaction/settings.js';

/**
 * The settings of the authorization flow (the authorization endpoint, the interactions that
 * sign the user in and ask for consent, and the built-in pages), resolved once: its routes are built
 * with them and pass them on, so no request carries them.
 */
export interface AuthorizationFlow {
  /** Sign-in and consent handed to the host (`interactions` options, resolved). */
  readonly interactions: InteractionSettings;
  /** The host's consent memory policy (`consent.remember`), if any. */
  readonly rememberConsent: ConsentOptions['remember'];
  /**
   * Every client must push its authorization requests (RFC 9126 §5 and §6,
   * `pushedAuthorizationRequests.required`).
   */
  readonly requirePushedRequests: boolean;
}
