import { invalidScope } from '../../errors.js';
import type { TokenExchangeDecision } from '../../options.js';
import { invalidTarget } from '../resource-indicators.js';
import { parseScope } from '../scope.js';
import type { ExchangedToken } from './exchanged-token.js';

/*
 * Applying the policy's decision (RFC 8693 §5: "the authorization server ... MUST NOT issue a token
 * with more privileges than the policy allows"): the new token's scope and audience are what the
 * request asks for, when all of it lies within the decision, else an error; never a silent widening.
 */

/** The scopes a decision allows, as a list. */
function decidedScope(decision: TokenExchangeDecision): string[] {
  const scope = decision.scope ?? [];
  return typeof scope === 'string' ? parseScope(scope) : [...new Set(scope)];
}

/**
 * The new token's scope: the requested scopes, each allowed by the decision and, for an access
 * token of this instance as the subject, carried by that token too (an exchange narrows, never
 * widens, what the subject handed over); without a request, everything allowed. `invalid_scope`
 * when a requested scope is not allowed.
 */
export function exchangedScope(
  requested: readonly string[] | undefined,
  decision: TokenExchangeDecision,
  subject: ExchangedToken,
  boundBySubject: boolean,
): string[] {
  let allowed = decidedScope(decision);
  if (boundBySubject) allowed = allowed.filter((scope) => subject.scope.includes(scope));
  if (requested === undefined) return allowed;
  for (const scope of requested) {
    if (!allowed.includes(scope))
      throw invalidScope(`The scope "${scope}" is more than this exchange may grant (RFC 8693 section 5).`);
  }
  return [...requested];
}

/**
 * The new token's audience: the requested targets, each allowed by the decision (default: only
 * `fallback`), or without a request the decision's first (or `fallback`). `invalid_target`
 * (RFC 8693 §2.2.2) when a requested one is not allowed.
 */
export function exchangedAudience(
  requested: readonly string[],
  decision: TokenExchangeDecision,
  fallback: readonly string[],
): string[] {
  const allowed = decision.audience ?? fallback;
  if (requested.length === 0) {
    if (allowed.length === 0) throw invalidTarget('This exchange may not issue a token for any audience.');
    return [allowed[0]!];
  }
  for (const target of requested) {
    if (!allowed.includes(target))
      throw invalidTarget('The exchange may not issue a token for a requested resource or audience.');
  }
  return [...requested];
}
