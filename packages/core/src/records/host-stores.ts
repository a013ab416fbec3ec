import { ConfigurationError } from '../errors.js';
import type { GatehouseOptions } from '../options.js';
import type { UserStore } from '../storage/types.js';

/**
 * The host's stores (`clients`, `users`) have what every instance needs: `findClient`, `findUser`,
 * and `verifyPassword` when a password route is served. Throws `ConfigurationError`.
 */
export function checkHostStores(options: GatehouseOptions): void {
  if (!options.clients || typeof options.clients.findClient !== 'function') {
    throw new ConfigurationError(
      'clients: a ClientStore (with findClient) is required, e.g. memoryClientStore([...]).',
      {
        code: options.clients ? 'ERR_CONFIG_INVALID_OPTION' : 'ERR_CONFIG_MISSING_OPTION',
        option: 'clients',
      },
    );
  }
  if (!options.users || typeof options.users.findUser !== 'function') {
    throw new ConfigurationError('users: a UserStore (with findUser) is required.', {
      code: options.users ? 'ERR_CONFIG_INVALID_OPTION' : 'ERR_CONFIG_MISSING_OPTION',
      option: 'users',
    });
  }
  // Passwords are checked by the built-in login page and the Auth API only.
  if (typeof (options.users as Partial<UserStore>).verifyPassword !== 'function') {
    const users = [
      ...(options.interactions?.url === undefined
        ? ['the built-in login page (or set interactions.url)']
        : []),
      ...(options.authApi?.enabled !== false ? ['the Auth API (or set authApi.enabled: false)'] : []),
    ];
    if (users.length > 0)
      throw new ConfigurationError(`users.verifyPassword: required by ${users.join(' and ')}.`, {
        code: 'ERR_CONFIG_MISSING_OPTION',
        option: 'users.verifyPassword',
      });
  }
}
