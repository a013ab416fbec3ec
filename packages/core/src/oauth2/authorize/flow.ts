import { ConfigurationError } from '../../errors.js';
import type { ConsentOptions, GatehouseOptions } from '../../options.js';
import {
  type AuthorizationDetailsService,
  authorizationDetailsSettings,
} from '../authorization-details/feature.js';
import { type InteractionSettings, resolveInteractions } from '../interaction/settings.js';
import { pushRequirement } from '../par/feature.js';

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
  /**
   * Rich authorization requests (RFC 9396, `authorizationDetails` options): the service that checks
   * and shows `authorization_details`; absent when the feature is off (the parameter is ignored).
   */
  readonly authorizationDetails: AuthorizationDetailsService | undefined;
}

/** The authorization flow's options (`interactions`, `consent`, `pushedAuthorizationRequests.required`), checked. */
export function authorizationFlow(
  options: GatehouseOptions,
  issuerUrl: URL,
  basePath: string,
  sessionCookieName: string,
  fapi2: boolean,
): AuthorizationFlow {
  return {
    interactions: resolveInteractions(options.interactions, issuerUrl, basePath, sessionCookieName),
    rememberConsent: consentPolicy(options.consent),
    requirePushedRequests: pushRequirement(options.pushedAuthorizationRequests, fapi2),
    authorizationDetails: authorizationDetailsSettings(options.authorizationDetails),
  };
}
/** The `consent` option's hook, checked. */
function consentPolicy(given: GatehouseOptions['consent']): ConsentOptions['remember'] {
  if (given === undefined) return undefined;
  if (
    typeof given !== 'object' ||
    given === null ||
    (given.remember !== undefined && typeof given.remember !== 'function')
  )
    throw new ConfigurationError(
      'consent.remember: expected a function (consent) => { scopes, resources, ttl }.',
      {
        code: 'ERR_CONFIG_INVALID_OPTION',
        option: 'consent.remember',
      },
    );
  return given.remember;
}
