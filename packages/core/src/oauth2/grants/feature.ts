import type { Feature } from '../../feature.js';
import { JWT_BEARER_GRANT } from '../jwt-assertion.js';
import { TOKEN_EXCHANGE_GRANT, TOKEN_TYPES } from '../token-exchange/exchanged-token.js';
import { jwtBearerEnabled } from '../trusted-issuers.js';
import { authorizationCodeGrant } from './authorization-code.js';
import { clientCredentialsGrant } from './client-credentials.js';
import { jwtBearerGrant } from './jwt-bearer.js';
import { refreshTokenGrant } from './refresh-token.js';
import { tokenExchangeGrant } from './token-exchange.js';

/** The grant types of RFC 6749 every instance serves: authorization code, refresh token, client credentials. */
export const coreGrantsFeature: Feature = {
  name: 'core grants',
  setup: (_options, { authorizationDetails: details }) => ({
    // Each closes over the instance's rich authorization requests (RFC 9396 §6), if on.
    grants: {
      authorization_code: (ctx, params, client, dpop) =>
        authorizationCodeGrant(ctx, params, client, dpop, details),
      refresh_token: (ctx, params, client, dpop) => refreshTokenGrant(ctx, params, client, dpop, details),
      client_credentials: (ctx, params, client, dpop) =>
        clientCredentialsGrant(ctx, params, client, dpop, details),
    },
  }),
};

/** RFC 8693 token exchange: its grant type, served only when `tokenExchange` is configured. */
export const tokenExchangeFeature: Feature = {
  name: 'token exchange',
  setup: (_options, shared) => {
    const settings = shared.tokenExchange;
    if (settings === undefined) return {};
    return {
      grants: { [TOKEN_EXCHANGE_GRANT]: tokenExchangeGrant(settings) },
      // draft-ietf-oauth-identity-chaining, as draft-ietf-oauth-identity-assertion-authz-grant §7
      // says: this server issues ID-JAGs by token exchange.
      metadata: () =>
        settings.idJagAudiences.size > 0
          ? { identity_chaining_requested_token_types_supported: [TOKEN_TYPES.idJag] }
          : {},
    };
  },
};

/** RFC 7523 §2.1 JWT bearer grant: served only when a trusted issuer allows it (`trustedIssuers`). */
export const jwtBearerFeature: Feature = {
  name: 'JWT bearer grant',
  setup: (_options, shared) =>
    jwtBearerEnabled(shared) ? { grants: { [JWT_BEARER_GRANT]: jwtBearerGrant } } : {},
};
