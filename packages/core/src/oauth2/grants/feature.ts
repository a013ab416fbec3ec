import type { Feature } from '../../feature.js';
import { JWT_BEARER_GRANT } from '../jwt-assertion.js';
import { TOKEN_EXCHANGE_GRANT } from '../token-exchange/exchanged-token.js';
import { jwtBearerEnabled } from '../trusted-issuers.js';
import { authorizationCodeGrant } from './authorization-code.js';
import { clientCredentialsGrant } from './client-credentials.js';
import { jwtBearerGrant } from './jwt-bearer.js';
import { refreshTokenGrant } from './refresh-token.js';
import { tokenExchangeGrant } from './token-exchange.js';

/** The grant types of RFC 6749 every instance serves: authorization code, refresh token, client credentials. */
export const coreGrantsFeature: Feature = {
  name: 'core grants',
  setup: () => ({
    grants: {
      authorization_code: authorizationCodeGrant,
      refresh_token: refreshTokenGrant,
      client_credentials: clientCredentialsGrant,
    },
  }),
};

/** RFC 8693 token exchange: its grant type, served only when `tokenExchange` is configured. */
export const tokenExchangeFeature: Feature = {
  name: 'token exchange',
  setup: (_options, shared) =>
    shared.tokenExchange === undefined ? {} : { grants: { [TOKEN_EXCHANGE_GRANT]: tokenExchangeGrant } },
};

/** RFC 7523 §2.1 JWT bearer grant: served only when a trusted issuer allows it (`trustedIssuers`). */
export const jwtBearerFeature: Feature = {
  name: 'JWT bearer grant',
  setup: (_options, shared) =>
    jwtBearerEnabled(shared) ? { grants: { [JWT_BEARER_GRANT]: jwtBearerGrant } } : {},
};
