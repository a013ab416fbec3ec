/*
 * The scope grammar of RFC 6749 §3.3, below every folder: the grant store's exchanges and the
 * token endpoint read scope strings alike.
 */

import { invalidScope } from './errors.js';

/**
 * Whether `token` is one of the scope's tokens, refusing a malformed scope as {@link parseScope}
 * does, without splitting it: the token endpoint asks this of every grant's scope (`openid`,
 * `offline_access`), where a split, a filter, a set and their arrays were a measurable share.
 */
export function scopeIncludes(scope: string, token: string): boolean {
  let found = false;
  let start = 0;
  for (let i = 0; i <= scope.length; i++) {
    const code = i < scope.length ? scope.charCodeAt(i) : 0x20;
    if (code === 0x20) {
      if (!found && i - start === token.length && scope.startsWith(token, start)) found = true;
      start = i + 1;
    } else if (code < 0x21 || code === 0x22 || code === 0x5c || code > 0x7e) {
      throw invalidScope('The scope contains an invalid character.');
    }
  }
  return found;
}
