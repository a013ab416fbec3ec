import type { Context } from '../../context.js';
import { ConfigurationError, invalidClient } from '../../errors.js';
import type { GatehouseOptions } from '../../options.js';
import type { AuthenticatedClient } from '../client-auth/authenticate-client.js';

/**
 * The FAPI 2.0 Security Profile switch (`securityProfile: 'fapi2'`; see `docs/fapi2.md` for the
 * requirements it meets and those it does not). What it turns on is spread over the settings it
 * tightens (pushed requests required, PKCE for all, DPoP proofs on every token request, codes of
 * at most 60 s); the client authentication rule is here.
 */

/** Whether the options ask for the FAPI 2.0 profile; throws for an unknown profile or a conflict. */
export function fapi2Profile(options: GatehouseOptions): boolean {
  const profile = options.securityProfile;
  if (profile === undefined) return false;
  if (profile !== 'fapi2')
    throw new ConfigurationError(`securityProfile: expected "fapi2", got ${JSON.stringify(profile)}.`, {
      code: 'ERR_CONFIG_INVALID_OPTION',
      option: 'securityProfile',
    });
  if (options.requirePkce === 'public')
    throw new ConfigurationError(
      'requirePkce: the securityProfile "fapi2" requires PKCE of every client ("all").',
      { code: 'ERR_CONFIG_CONFLICTING_OPTIONS', option: 'requirePkce' },
    );
  return true;
}

/**
 * FAPI 2.0 Security Profile §5.3.2.1: confidential clients authenticate with `private_key_jwt`
 * (mTLS is not offered), never with a shared secret; public clients (method `none`) remain, held
 * to DPoP-bound tokens. Another method is 401 `invalid_client`.
 */
export function checkProfileClientAuth(
  ctx: Pick<Context, 'securityProfile' | 'realm'>,
  authenticated: AuthenticatedClient,
): void {
  if (ctx.securityProfile !== 'fapi2') return;
  if (authenticated.method !== 'private_key_jwt' && authenticated.method !== 'none')
    throw invalidClient(ctx.realm);
}
