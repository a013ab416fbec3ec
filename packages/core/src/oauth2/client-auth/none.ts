import type { ClientAuthMethod, PresentedClient } from './method.js';

/**
 * `none` (RFC 7591 §2): a public client, which has no credentials (RFC 6749 §2.1), names itself
 * with `client_id` in the body (§3.2.1). Used only when the request presents no credentials of an
 * identity-proving method; what keeps a stranger from acting as a public client is PKCE and the
 * registered redirect URIs, not this step.
 */
export const noClientAuthentication: ClientAuthMethod<PresentedClient> = {
  name: 'none',
  provesIdentity: false,
  bodyParameters: [],
  detect(_ctx, _request, params) {
    const clientId = params.get('client_id');
    return clientId === undefined ? undefined : { clientId };
  },
  verify: (_ctx, _presented, client) => client !== undefined,
};
