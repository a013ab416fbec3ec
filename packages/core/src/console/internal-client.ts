import type { GatehouseOptions } from '../options.js';
import type { ClientRecord } from '../storage/types.js';
import { CONSOLE_CLIENT_ID, consoleSettings } from './settings.js';

/**
 * The operations console's client, when the console is on: a first-party public client (PKCE S256,
 * RFC 7636) whose one redirect URI is the console's callback on the instance itself, allowed only
 * the admin scope and only the authorization code grant (no refresh token: a sign-in lasts one
 * access token). Public, because the code never leaves the server: the callback redeems it in
 * process with the verifier kept in an HttpOnly cookie; nothing a secret would add.
 */
export function consoleClients(
  options: GatehouseOptions,
  issuer: string,
  adminScope: string | undefined,
): ReadonlyMap<string, ClientRecord> | undefined {
  const settings = consoleSettings(options, issuer, adminScope);
  if (settings === undefined) return undefined;
  const client: ClientRecord = {
    id: CONSOLE_CLIENT_ID,
    name: 'Operations console',
    type: 'public',
    tokenEndpointAuthMethod: 'none',
    grantTypes: ['authorization_code'],
    redirectUris: [settings.redirectUri],
    scopes: [settings.scope],
    firstParty: true,
  };
  return new Map([[CONSOLE_CLIENT_ID, client]]);
}
