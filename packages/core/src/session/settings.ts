import type { Context } from '../context.js';
import { ConfigurationError } from '../errors.js';
import { lifetime } from '../option-values.js';
import type { GatehouseOptions } from '../options.js';

/** The `session` options, checked: a valid cookie name, and a cookie path that reaches the instance. */
export function sessionSettings(given: GatehouseOptions['session'], basePath: string): Context['session'] {
  const cookieName = given?.cookieName ?? 'gatehouse_session';
  if (!/^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/.test(cookieName)) {
    throw new ConfigurationError(
      `session.cookieName: "${cookieName}" is not a valid cookie name (RFC 6265 §4.1.1).`,
      { option: 'session.cookieName' },
    );
  }
  const cookiePath = given?.cookiePath ?? (basePath === '' ? '/' : basePath);
  if (!isPathPrefix(cookiePath, basePath)) {
    throw new ConfigurationError(
      `session.cookiePath: "${cookiePath}" must be "/" or a path prefix of the instance path "${basePath || '/'}" ` +
        '(the cookie must reach the login and authorize routes), without a trailing slash.',
      { option: 'session.cookiePath' },
    );
  }
  return {
    cookieName,
    cookiePath,
    idleTimeout: lifetime('session.idleTimeout', given?.idleTimeout, 1800),
    absoluteTimeout: lifetime('session.absoluteTimeout', given?.absoluteTimeout, 43_200),
  };
}
/** Whether `prefix` is `/` or a whole-segment prefix of `path` (`/a` of `/a/b`, never of `/ab`). */
function isPathPrefix(prefix: string, path: string): boolean {
  if (prefix === '/') return true;
  if (!prefix.startsWith('/') || prefix.endsWith('/')) return false;
  return path === prefix || path.startsWith(`${prefix}/`);
}
