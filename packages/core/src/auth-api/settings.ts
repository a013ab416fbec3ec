import { ConfigurationError } from '../errors.js';
import { lifetime } from '../option-values.js';
import type { GatehouseOptions } from '../options.js';

/** The Auth API (`authApi` options): on or off, its tokens' lifetime and scope. */
export interface AuthApiSettings {
  readonly enabled: boolean;
  readonly tokenTtl: number;
  readonly scope: string;
}

/** The `authApi` options, checked: its scope must be among the instance's `scopes`. */
export function authApiSettings(
  options: GatehouseOptions,
  scopes: ReadonlySet<string> | undefined,
  fapi2: boolean,
): AuthApiSettings {
  const scope = (options.authApi?.scope ?? '').split(' ').filter(Boolean);
  for (const name of scope) {
    if (scopes && !scopes.has(name))
      throw new ConfigurationError(`authApi.scope: "${name}" is not in scopes.`, {
        code: 'ERR_CONFIG_CONFLICTING_OPTIONS',
        option: 'authApi.scope',
      });
  }
  return {
    // The Auth API is a password grant in another shape, which FAPI 2.0 rules out.
    enabled: options.authApi?.enabled ?? !fapi2,
    tokenTtl: lifetime('authApi.tokenTtl', options.authApi?.tokenTtl, 86_400, 30 * 86_400),
    scope: [...new Set(scope)].join(' '),
  };
}
