import { ConfigurationError } from '../../errors.js';
import type { Params } from '../../http/form.js';
import type { RequestObjectOptions } from '../../options.js';
import type { ClientRecord } from '../../storage/types.js';
import {
  mustSignRequests,
  type RequestObjectPolicy,
  type RequestObjectVerifying,
  requestObjectParameters,
} from './request-object.js';

/**
 * Signed request objects (RFC 9101) as the instance runs them (`requestObjects`, validated), and
 * the one verification the authorization endpoint and the pushed authorization request endpoint
 * share (the instance settings' `requestObjects`).
 */
export interface RequestObjectSettings extends RequestObjectPolicy {
  /**
   * Every authorization request must be a signed request object (RFC 9101 §10.5
   * `require_signed_request_object`): at the authorization endpoint (unless pushed) and the
   * pushed authorization request endpoint.
   */
  readonly required: boolean;
  /** Whether `client` must send signed request objects (the instance's `required`, or its own registration). */
  mustSign(client: ClientRecord): boolean;
  /**
   * The authorization parameters of `client`'s request object `jwt`, verified (RFC 9101 §6);
   * throws `invalid_request_object`. `request` pays for a key set fetch.
   */
  parameters(
    ctx: RequestObjectVerifying,
    client: ClientRecord,
    jwt: string,
    request?: Request,
  ): Promise<Params>;
}

/** Validates the `requestObjects` option; `fapi2`: the instance follows the FAPI 2.0 profile. */
export function requestObjectSettings(
  options: RequestObjectOptions | undefined,
  fapi2: boolean,
): RequestObjectSettings {
  if (options !== undefined && (typeof options !== 'object' || options === null))
    throw new ConfigurationError('requestObjects: expected an object { required?, allowUnsigned? }.', {
      code: 'ERR_CONFIG_INVALID_OPTION',
      option: 'requestObjects',
    });
  const flag = (name: 'required' | 'allowUnsigned'): boolean => {
    const value = options?.[name] ?? false;
    if (typeof value !== 'boolean')
      throw new ConfigurationError(`requestObjects.${name}: expected true or false.`, {
        code: 'ERR_CONFIG_INVALID_OPTION',
        option: `requestObjects.${name}`,
      });
    return value;
  };
  const required = flag('required');
  const allowUnsigned = flag('allowUnsigned');
  // RFC 9101 §10.2 / FAPI 2.0 Message Signing: an unsigned object proves nothing.
  if (allowUnsigned && (fapi2 || required))
    throw new ConfigurationError(
      `requestObjects.allowUnsigned: unsigned request objects cannot be allowed ${fapi2 ? 'under the securityProfile "fapi2"' : 'when signed ones are required'}.`,
      { code: 'ERR_CONFIG_CONFLICTING_OPTIONS', option: 'requestObjects.allowUnsigned' },
    );
  const settings: RequestObjectSettings = {
    required,
    allowUnsigned,
    mustSign: (client) => mustSignRequests(settings, client),
    parameters: (ctx, client, jwt, request) => requestObjectParameters(ctx, settings, client, jwt, request),
  };
  return settings;
}
