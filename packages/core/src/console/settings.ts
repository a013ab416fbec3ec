import { ConfigurationError } from '../errors.js';
import type { GatehouseOptions } from '../options.js';

/** The id of the operations console's own client (reserved: no host client or registration can take it). */
export const CONSOLE_CLIENT_ID = 'gatehouse-operations-console';

/** Where the console lives below the instance path, and its pages. */
export const CONSOLE_PATHS = {
  home: '/admin/',
  callback: '/admin/callback',
  signOut: '/admin/signout',
  keys: '/admin/keys',
  rotate: '/admin/keys/rotate',
  revokeKey: '/admin/keys/revoke',
  clients: '/admin/clients',
  deleteClient: '/admin/clients/delete',
  users: '/admin/users',
  revokeSession: '/admin/sessions/revoke',
  revokeGrant: '/admin/grants/revoke',
  revokeUser: '/admin/users/revoke',
  audit: '/admin/audit',
} as const;

/** The operations console, resolved: on when the admin API is, unless `adminConsole: false`. */
export interface ConsoleSettings {
  /** The scope its access token asks for: the admin API's (`admin.scope`). */
  readonly scope: string;
  /** `{base_url}/admin/callback`: its client's one redirect URI. */
  readonly redirectUri: string;
}

/**
 * The console's settings (`adminConsole`), or `undefined` when it is off: explicitly, or because
 * the admin API it calls is (`adminScope`: the admin API's scope when it is on, `admin.scope`).
 */
export function consoleSettings(
  options: GatehouseOptions,
  issuer: string,
  adminScope: string | undefined,
): ConsoleSettings | undefined {
  const enabled = options.adminConsole;
  if (enabled !== undefined && typeof enabled !== 'boolean')
    throw new ConfigurationError('adminConsole: expected true or false.', {
      code: 'ERR_CONFIG_INVALID_OPTION',
      option: 'adminConsole',
    });
  const scope = adminScope;
  if (enabled === true && scope === undefined)
    throw new ConfigurationError(
      'adminConsole: the console calls the admin API; turn it on with the admin option.',
      {
        code: 'ERR_CONFIG_MISSING_OPTION',
        option: 'adminConsole',
      },
    );
  if (enabled === false || scope === undefined) return undefined;
  return { scope, redirectUri: issuer + CONSOLE_PATHS.callback };
}
