import { ConfigurationError } from '../../errors.js';
import { whole } from '../../option-values.js';
import type { PushedAuthorizationRequestOptions } from '../../options.js';

/**
 * The pushed authorization request endpoint as the instance runs it (`pushedAuthorizationRequests`,
 * validated). Whether every client must push is not here: the authorization endpoint enforces it,
 * so it is the shared context's `requirePushedRequests` ({@link pushRequirement}).
 */
export interface PushedRequestSettings {
  /** Lifetime of a `request_uri`, in seconds (RFC 9126 §2.2 `expires_in`). */
  readonly requestUriTtl: number;
  /** Pushes of public clients per client network per minute. */
  readonly maxPublicPushesPerAddress: number;
}

/**
 * Validates `pushedAuthorizationRequests.required`: whether every client must push (RFC 9126 §5
 * `require_pushed_authorization_requests`), always under the FAPI 2.0 profile.
 */
export function pushRequirement(
  options: PushedAuthorizationRequestOptions | undefined,
  fapi2 = false,
): boolean {
  const required = options?.required ?? fapi2;
  if (typeof required !== 'boolean')
    throw new ConfigurationError('pushedAuthorizationRequests.required: expected true or false.', {
      code: 'ERR_CONFIG_INVALID_OPTION',
      option: 'pushedAuthorizationRequests.required',
    });
  if (fapi2 && !required)
    throw new ConfigurationError(
      'pushedAuthorizationRequests.required: the securityProfile "fapi2" requires pushed requests.',
      { code: 'ERR_CONFIG_CONFLICTING_OPTIONS', option: 'pushedAuthorizationRequests.required' },
    );
  return required;
}

/** Validates the rest of the `pushedAuthorizationRequests` option (see {@link pushRequirement}). */
export function pushedRequestSettings(
  options: PushedAuthorizationRequestOptions | undefined,
): PushedRequestSettings {
  return {
    requestUriTtl: whole('pushedAuthorizationRequests.requestUriTtl', options?.requestUriTtl, 60, 5, 600),
    maxPublicPushesPerAddress: whole(
      'pushedAuthorizationRequests.maxPublicPushesPerAddress',
      options?.maxPublicPushesPerAddress,
      30,
      1,
      100_000,
    ),
  };
}
