import { ConfigurationError } from '../../errors.js';
import { whole } from '../../option-values.js';
import type { PushedAuthorizationRequestOptions } from '../../options.js';

/** Pushed authorization requests as the instance runs them (`pushedAuthorizationRequests`, validated). */
export interface PushedRequestSettings {
  /** Every client must push (RFC 9126 §5 `require_pushed_authorization_requests`). */
  readonly required: boolean;
  /** Lifetime of a `request_uri`, in seconds (RFC 9126 §2.2 `expires_in`). */
  readonly requestUriTtl: number;
  /** Pushes of public clients per client network per minute. */
  readonly maxPublicPushesPerAddress: number;
}

/** Validates the `pushedAuthorizationRequests` option. */
export function pushedRequestSettings(
  options: PushedAuthorizationRequestOptions | undefined,
  fapi2 = false,
): PushedRequestSettings {
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
  return {
    required,
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
