import type { Context } from '../context.js';
import { invalidRequest } from '../errors.js';
import type { Params } from '../http/form.js';
import type { ClientRecord } from '../storage/types.js';
import { type IdTokenHint, verifyIdTokenHint } from './id-token.js';

/** The parameters of a logout request Gatehouse reads (RP-Initiated Logout 1.0 §2). */
export const END_SESSION_PARAMETERS = [
  'id_token_hint',
  'logout_hint',
  'client_id',
  'post_logout_redirect_uri',
  'state',
  'ui_locales',
] as const;

/** A validated RP-initiated logout request. */
export interface EndSessionRequest {
  /** The relying party: named by `client_id`, or the audience of the `id_token_hint`. */
  readonly client?: ClientRecord;
  /** Who the `id_token_hint` names (verified: our signature and issuer; expiry ignored). */
  readonly hint?: IdTokenHint;
  /** Where to send the browser afterwards: set only when registered for {@link client}. */
  readonly postLogoutRedirectUri?: string;
  /** Echoed on the post-logout redirect, exactly as sent. */
  readonly state?: string;
  /** The request's own parameters, to carry through the confirmation form. */
  readonly parameters: Readonly<Record<string, string>>;
}

/**
 * Validates an RP-initiated logout request (RP-Initiated Logout 1.0 §2, §3):
 *
 * - `id_token_hint`, when sent, must be an ID token of this issuer (signature and `iss`), expired or
 *   not; otherwise `invalid_request`.
 * - `client_id`, when sent, must name a client, and one of the hint's audiences when both are sent.
 * - `post_logout_redirect_uri` is kept only when it exactly equals one of the client's registered
 *   `postLogoutRedirectUris`: otherwise the logout still happens, without a redirect (§3: the OP
 *   must not redirect to an unregistered URI). Without a client there is nothing to match it with.
 *
 * Throws `invalid_request` (shown as a page: a logout request is never redirected on error).
 */
export async function validateEndSessionRequest(
  ctx: Pick<Context, 'clients' | 'issuer' | 'keys'>,
  params: Params,
  request?: Request,
): Promise<EndSessionRequest> {
  const parameters: Record<string, string> = {};
  for (const name of END_SESSION_PARAMETERS) {
    const value = params.get(name); // throws invalid_request when repeated
    if (value !== undefined) parameters[name] = value;
  }
  let hint: IdTokenHint | undefined;
  if (parameters.id_token_hint !== undefined) {
    hint = (await verifyIdTokenHint(ctx, parameters.id_token_hint)) ?? undefined;
    if (!hint) throw invalidRequest('The id_token_hint is not an ID token of this issuer.');
  }
  const clientId = parameters.client_id ?? (hint?.audiences.length === 1 ? hint.audiences[0] : undefined);
  if (parameters.client_id !== undefined && hint && !hint.audiences.includes(parameters.client_id))
    throw invalidRequest('The client_id is not the one the id_token_hint was issued to.');
  const client = clientId === undefined ? null : await ctx.clients.findClient(clientId, request);
  if (!client && parameters.client_id !== undefined) throw invalidRequest('The client is unknown.');
  const sentUri = parameters.post_logout_redirect_uri;
  const registered = sentUri !== undefined && (client?.postLogoutRedirectUris ?? []).includes(sentUri);
  return {
    parameters,
    ...(client ? { client } : {}),
    ...(hint ? { hint } : {}),
    ...(registered ? { postLogoutRedirectUri: sentUri } : {}),
    ...(parameters.state === undefined ? {} : { state: parameters.state }),
  };
}

/**
 * Whether logging out needs the user's confirmation (RP-Initiated Logout 1.0 §2: the OP should ask
 * when the request may not come from the session's own relying party, since anyone can make a
 * browser open the endpoint). No confirmation when there is no session to end, or when the
 * `id_token_hint` names the session's user (and its session, when the hint carries a `sid`):
 * only a relying party of that session holds such a token.
 */
export function endSessionNeedsConfirmation(
  request: EndSessionRequest,
  session: { readonly userId: string; readonly sid?: string } | null,
): boolean {
  if (session === null) return false;
  const { hint } = request;
  if (!hint || hint.sub !== session.userId) return true;
  return hint.sid !== undefined && session.sid !== undefined && hint.sid !== session.sid;
}
