/**
 * The `act` (actor) claim of RFC 8693 §4.1: who acts for the subject, and in a nested `act` the
 * prior actors of the delegation chain (the outermost is the current actor). Only identity claims
 * (`sub`, `iss`, `sub_kind`) are kept, as §4.1 says.
 */
export interface ActClaim {
  readonly sub: string;
  /** The actor's issuer, when it is not this instance. */
  readonly iss?: string;
  /** `"client"` when the actor is an OAuth client acting for itself (its `sub` is the client id). */
  readonly sub_kind?: 'client';
  /** The prior actor. */
  readonly act?: ActClaim;
}

/**
 * Deepest delegation chain accepted or issued (nested `act` claims, RFC 8693 §4.1). Each exchange
 * adds one level; the bound keeps tokens (and the verification of what they carry) small.
 */
export const MAX_ACT_DEPTH = 8;

/** Longest `sub` or `iss` of an actor, in characters. */
const MAX_ACTOR_ID_LENGTH = 512;

/**
 * The `act` claim of a verified token, checked: an object with a string `sub`, optionally `iss`,
 * `sub_kind: "client"` and a nested `act`, at most {@link MAX_ACT_DEPTH} deep; other members are
 * dropped (§4.1: only identity claims are meaningful in `act`). `undefined` when absent; `null`
 * when malformed, which makes the token invalid.
 */
export function parseAct(value: unknown, depth = 1): ActClaim | undefined | null {
  if (value === undefined) return undefined;
  if (depth > MAX_ACT_DEPTH || typeof value !== 'object' || value === null || Array.isArray(value))
    return null;
  const { sub, iss, sub_kind: subKind, act } = value as Record<string, unknown>;
  if (typeof sub !== 'string' || sub === '' || sub.length > MAX_ACTOR_ID_LENGTH) return null;
  if (iss !== undefined && (typeof iss !== 'string' || iss.length > MAX_ACTOR_ID_LENGTH)) return null;
  if (subKind !== undefined && subKind !== 'client') return null;
  const prior = parseAct(act, depth + 1);
  if (prior === null) return null;
  return {
    sub,
    ...(iss === undefined ? {} : { iss }),
    ...(subKind === undefined ? {} : { sub_kind: subKind }),
    ...(prior === undefined ? {} : { act: prior }),
  };
}

/** The depth of a delegation chain (0 without `act`). */
export function actDepth(act: ActClaim | undefined): number {
  return act === undefined ? 0 : 1 + actDepth(act.act);
}
