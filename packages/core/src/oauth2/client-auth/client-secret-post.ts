import { verifyClientSecret } from './client-secret.js';
import type { PresentedSecret } from './client-secret-basic.js';
import type { ClientAuthMethod } from './method.js';

/**
 * `client_secret_post` (RFC 6749 §2.3.1): `client_id` and `client_secret` in the form body, which
 * the RFC allows for clients that cannot send HTTP Basic (many OpenID Connect relying-party
 * libraries, passport-openidconnect among them, only do this). Only clients registered with
 * `tokenEndpointAuthMethod: 'client_secret_post'` may use it; a `client_secret` without a
 * `client_id` names no client and fails (401 `invalid_client`).
 */
export const clientSecretPost: ClientAuthMethod<PresentedSecret> = {
  name: 'client_secret_post',
  provesIdentity: true,
  bodyParameters: ['client_secret'],
  detect(_ctx, _request, params) {
    const secret = params.get('client_secret');
    if (secret === undefined) return undefined;
    // Without a client_id it names no client: verification then fails (401 invalid_client) unless
    // the request also uses another method, which is 400 invalid_request (RFC 6749 §2.3).
    return { clientId: params.get('client_id') ?? '', secret };
  },
  verify: (ctx, presented, client) => verifyClientSecret(ctx, presented.secret, client),
};
