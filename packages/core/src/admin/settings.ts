import { ConfigurationError } from '../errors.js';
import type { AdminOptions } from '../options.js';
import type { Caller } from '../protect/types.js';
import type { UserRecord } from '../storage/types.js';
import { AdminRecorder } from './recorder.js';

/** The admin API's default scope. */
export const DEFAULT_ADMIN_SCOPE = 'gatehouse:admin';

/** `admin`, checked: what the admin API's routes are built with. */
export interface AdminSettings {
  /** The scope its tokens must carry. */
  readonly scope: string;
  /** The host's hook: whether a caller holding the scope may administer the instance. */
  readonly authorize: (caller: Caller) => unknown;
  /** The host's user search, if any (else the lookup by id). */
  readonly findUsers: ((query: string) => unknown) | undefined;
  /**
   * The instance's recent audit records and per-minute counters, fed by its events (an audit sink
   * of the instance's emitter, added by the composition root).
   */
  readonly recorder: AdminRecorder;
}

/** A scope token (RFC 6749 §3.3): printable ASCII but space, `"` and `\`. */
const SCOPE_TOKEN = /^[\x21\x23-\x5b\x5d-\x7e]+$/;

/**
 * Checks `admin` into the admin API's settings; `undefined` when it is off. `scopes` is the
 * instance's scope list (`scopes` option), which must hold the admin scope when there is one:
 * otherwise no token could carry it.
 */
export function adminSettings(
  given: AdminOptions | undefined,
  scopes: ReadonlySet<string> | undefined,
): AdminSettings | undefined {
  if (given === undefined) return undefined;
  if (typeof given !== 'object' || given === null)
    throw new ConfigurationError('admin: expected an object ({ authorize, scope? }).', {
      code: 'ERR_CONFIG_INVALID_OPTION',
      option: 'admin',
    });
  if (typeof given.authorize !== 'function')
    throw new ConfigurationError(
      'admin.authorize: required, a function telling which callers may administer the instance (e.g. ({ subject }) => subject.kind === "user" && subject.userId === "user-admin").',
      { code: 'ERR_CONFIG_MISSING_OPTION', option: 'admin.authorize' },
    );
  const scope = given.scope ?? DEFAULT_ADMIN_SCOPE;
  if (typeof scope !== 'string' || !SCOPE_TOKEN.test(scope) || scope.length > 256)
    throw new ConfigurationError(
      `admin.scope: expected one scope token (RFC 6749 §3.3, at most 256 characters), got ${JSON.stringify(scope)}.`,
      { code: 'ERR_CONFIG_INVALID_OPTION', option: 'admin.scope' },
    );
  if (scopes !== undefined && !scopes.has(scope))
    throw new ConfigurationError(
      `admin.scope: "${scope}" is not one of the instance's scopes (the scopes option): no token could carry it. Add it to scopes.`,
      { code: 'ERR_CONFIG_CONFLICTING_OPTIONS', option: 'admin.scope' },
    );
  if (given.findUsers !== undefined && typeof given.findUsers !== 'function')
    throw new ConfigurationError('admin.findUsers: expected a function (query) => users.', {
      code: 'ERR_CONFIG_INVALID_OPTION',
      option: 'admin.findUsers',
    });
  return {
    scope,
    authorize: given.authorize,
    findUsers: given.findUsers as ((query: string) => Promise<readonly UserRecord[]>) | undefined,
    recorder: new AdminRecorder(),
  };
}
