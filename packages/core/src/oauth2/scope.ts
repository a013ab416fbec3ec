import type { TokenPolicy } from '../context.js';
import { invalidScope } from '../errors.js';
import { scopeIncludes } from '../scope-syntax.js';
import type { ClientRecord } from '../storage/types.js';

export { scopeIncludes };

/** RFC 6749 §3.3: scope-token = 1*( %x21 / %x23-5B / %x5D-7E ). */
const SCOPE_TOKEN = /^[\x21\x23-\x5b\x5d-\x7e]+$/;

/** Splits a scope parameter into its tokens, refusing malformed ones. */
export function parseScope(scope: string): string[] {
  const tokens = scope.split(' ').filter((token) => token !== '');
  for (const token of tokens)
    if (!SCOPE_TOKEN.test(token)) throw invalidScope('The scope contains an invalid character.');
  return [...new Set(tokens)];
}

/** The instance's scope settings (`scopes`, `defaultScope` options). */
export interface ScopePolicy {
  /** `scopes`: the scopes the instance supports (`undefined`: any); `defaultScope`: granted when a request names none. */
  readonly tokens: Pick<TokenPolicy, 'scopes' | 'defaultScope'>;
}

/**
 * The scope to grant a client for a requested scope (default scope when none is requested). Unknown
 * scopes, or scopes the client is not registered for, are `invalid_scope` (RFC 6749 §3.3).
 */
export function resolveRequestedScope(
  ctx: ScopePolicy,
  client: ClientRecord,
  requested: string | undefined,
): string {
  const tokens = parseScope(requested ?? ctx.tokens.defaultScope);
  for (const token of tokens) {
    if (ctx.tokens.scopes && !ctx.tokens.scopes.has(token))
      throw invalidScope(`The scope "${token}" is unknown.`);
    if (client.scopes && !client.scopes.includes(token))
      throw invalidScope(`The client may not request the scope "${token}".`);
  }
  return tokens.join(' ');
}

/** Whether every token of `narrower` is in `wider` (refresh may narrow, never widen: RFC 6749 §6). */
export function isScopeSubset(narrower: string, wider: string): boolean {
  const allowed = new Set(parseScope(wider));
  return parseScope(narrower).every((token) => allowed.has(token));
}
