import { oauthError } from '../errors.js';
import type { OidcAuthorizationParameters } from './authorization-parameters.js';

/** What an authorization request needs next. */
export type InteractionStep = 'login' | 'consent' | 'issue';

/** What {@link nextInteraction} decides on. */
export interface InteractionState {
  readonly oidc: OidcAuthorizationParameters;
  /**
   * The signed-in user: who, when they authenticated (epoch ms) and the authentication context
   * class reached (`acr`); `null` without one.
   */
  readonly session: { readonly userId: string; readonly authTime: number; readonly acr?: string } | null;
  /**
   * Whether `acr_values` is a requirement: a sign-in whose `acr` is not among them asks for a new
   * one. Only where the sign-in can reach another class (the host's, through interactions).
   */
  readonly enforceAcr?: boolean;
  /** The user a verified `id_token_hint` names, when one was sent. */
  readonly hintSubject?: string;
  /**
   * Whether the user must consent when nobody asks for it explicitly: not a first-party client and no
   * remembered consent covering the requested scope. Only read when there is a session.
   */
  readonly consentNeeded: boolean;
  /** Epoch ms. */
  readonly now: number;
}

/**
 * Decides the next step of an authorization request (OpenID Connect Core §3.1.2.1–§3.1.2.4):
 *
 * - **login** without a session, with `prompt=login`, when the session's authentication is older
 *   than `max_age` seconds (`max_age=0` is therefore `prompt=login`), when `id_token_hint` names
 *   another user than the session's, or (with {@link InteractionState.enforceAcr}) when its `acr`
 *   is not among `acr_values`;
 * - else **consent** with `prompt=consent`, or when {@link InteractionState.consentNeeded};
 * - else **issue** the code.
 *
 * With `prompt=none` no page may be shown: a needed login throws `login_required`, a needed consent
 * `consent_required` (both redirected to the client, §3.1.2.6).
 */
export function nextInteraction(state: InteractionState): InteractionStep {
  const { oidc, session } = state;
  const needsLogin =
    session === null ||
    oidc.prompt.has('login') ||
    (oidc.maxAge !== undefined && (oidc.maxAge === 0 || state.now - session.authTime > oidc.maxAge * 1000)) ||
    (state.hintSubject !== undefined && state.hintSubject !== session.userId) ||
    acrUnmet(state);
  if (needsLogin) {
    if (!oidc.prompt.has('none')) return 'login';
    throw oauthError('login_required', loginRequiredReason(state));
  }
  const needsConsent = oidc.prompt.has('consent') || state.consentNeeded;
  if (!needsConsent) return 'issue';
  if (oidc.prompt.has('none'))
    throw oauthError('consent_required', 'The user has not consented to this client and scope.');
  return 'consent';
}

/** Whether `acr_values` asks for an authentication class the sign-in did not reach (Core §3.1.2.1). */
function acrUnmet(state: InteractionState): boolean {
  const wanted = state.oidc.acrValues;
  if (!state.enforceAcr || wanted.length === 0 || state.session === null) return false;
  return state.session.acr === undefined || !wanted.includes(state.session.acr);
}

function loginRequiredReason(state: InteractionState): string {
  if (state.session === null) return 'The user is not signed in.';
  if (acrUnmet(state))
    return 'The sign-in did not reach the authentication context class acr_values asks for.';
  if (state.hintSubject !== undefined && state.hintSubject !== state.session.userId)
    return 'The signed-in user is not the one the id_token_hint names.';
  return 'The user signed in longer ago than max_age allows.';
}
