/** Why an interaction or its result was refused (`InteractionError.code`). */
export type InteractionErrorCode =
  /** No such interaction: never issued, expired, already used, or from another instance. */
  | 'interaction_not_found'
  /** The interaction was started in another browser (its binding cookie is missing or different). */
  | 'interaction_wrong_browser'
  /** `finish` was already called for it. */
  | 'interaction_finished'
  /** The result is for another user than the one the interaction is bound to. */
  | 'interaction_wrong_user'
  /** The sign-in is older than `prompt=login` or `max_age` allows: sign the user in again. */
  | 'interaction_stale_login'
  /** The result is malformed or does not fit the step (no sign-in for a login, a scope not asked for, …). */
  | 'interaction_invalid_result';

/**
 * Thrown (rejected) by `gatehouse.interactions.details` and `finish`: the host shows its own error
 * page (`message` is safe to show; `status` is the HTTP status to answer with).
 */
export class InteractionError extends Error {
  readonly code: InteractionErrorCode;
  readonly status: number;
  constructor(code: InteractionErrorCode, message: string) {
    super(message);
    this.name = 'InteractionError';
    this.code = code;
    this.status = code === 'interaction_wrong_browser' || code === 'interaction_wrong_user' ? 403 : 400;
  }
}
