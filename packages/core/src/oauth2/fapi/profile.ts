import type { Context } from '../../context.js';
import { ConfigurationError, invalidClient } from '../../errors.js';
import type { GatehouseOptions } from '../../options.js';
import { hostClientRecords } from '../../storage/memory/clients.js';
import type { AuthenticatedClient } from '../client-auth/authenticate-client.js';

/**
 * The FAPI 2.0 Security Profile switch (`securityProfile: 'fapi2'`; see `docs/fapi2.md` for the
 * requirements it meets and those it does not). What it turns on is spread over the settings it
 * tightens (pushed requests required, PKCE for all, DPoP proofs on every token request, codes of
 * at most 60 s); the client authentication rule is here.
 */

/**
 * Whether the options ask for the FAPI 2.0 profile (`'fapi2'` or `'fapi2-strict'`); throws for an
 * unknown profile or a conflict.
 */
export function fapi2Profile(options: GatehouseOptions): boolean {
  const profile = options.securityProfile;
  if (profile === undefined) return false;
  if (profile !== 'fapi2' && profile !== 'fapi2-strict')
    throw new ConfigurationError(
      `securityProfile: expected "fapi2" or "fapi2-strict", got ${JSON.stringify(profile)}.`,
      { code: 'ERR_CONFIG_INVALID_OPTION', option: 'securityProfile' },
    );
  if (options.requirePkce === 'public')
    throw new ConfigurationError(
      `requirePkce: the securityProfile "${profile}" requires PKCE of every client ("all").`,
      { code: 'ERR_CONFIG_CONFLICTING_OPTIONS', option: 'requirePkce' },
    );
  return true;
}

/**
 * Whether only confidential clients are served (`securityProfile: 'fapi2-strict'`, FAPI 2.0
 * Security Profile §5.3.2.1 item 1: "shall only support confidential clients"). Checks at
 * construction what can be checked then: the host's `memoryClientStore` holds no public client
 * (a `ConfigurationError` naming it), and `dynamicRegistration` is not anonymous (RFC 7591 §3
 * open registration would let anyone create clients; an `initialAccessToken` is required).
 */
export function confidentialClientsOnly(options: GatehouseOptions): boolean {
  if (options.securityProfile !== 'fapi2-strict') return false;
  const records = options.clients === undefined ? undefined : hostClientRecords(options.clients);
  const index = records?.findIndex((client) => client.type !== 'confidential') ?? -1;
  if (index >= 0)
    throw new ConfigurationError(
      `clients[${index}]: the client "${records![index]!.id}" is public; the securityProfile "fapi2-strict" serves confidential clients only (FAPI 2.0 Security Profile section 5.3.2.1).`,
      { code: 'ERR_CONFIG_CONFLICTING_OPTIONS', option: `clients[${index}].type` },
    );
  if (
    options.dynamicRegistration !== undefined &&
    options.dynamicRegistration.initialAccessToken === undefined
  )
    throw new ConfigurationError(
      'dynamicRegistration.initialAccessToken: the securityProfile "fapi2-strict" allows no anonymous registration; give an initial access token (RFC 7591 section 3).',
      { code: 'ERR_CONFIG_CONFLICTING_OPTIONS', option: 'dynamicRegistration.initialAccessToken' },
    );
  return true;
}

/**
 * FAPI 2.0 Security Profile §5.3.2.1: confidential clients authenticate with `private_key_jwt`
 * (mTLS is not offered), never with a shared secret; public clients (method `none`) remain, held
 * to DPoP-bound tokens, except under `'fapi2-strict'` (confidential clients only), where a public
 * client is refused whatever store or document it comes from. Another method is 401
 * `invalid_client`.
 */
export function checkProfileClientAuth(
  ctx: Pick<Context, 'profile' | 'issuer'>,
  authenticated: AuthenticatedClient,
): void {
  if (ctx.profile.securityProfile !== 'fapi2') return;
  if (
    ctx.profile.confidentialClientsOnly &&
    (authenticated.client.type !== 'confidential' || authenticated.method === 'none')
  )
    throw invalidClient(ctx.issuer);
  if (authenticated.method !== 'private_key_jwt' && authenticated.method !== 'none')
    throw invalidClient(ctx.issuer);
}
