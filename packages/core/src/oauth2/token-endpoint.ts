import type { Context } from '../context.js';
import type { DpopProof } from '../dpop/proof.js';
import { tokenRequestProof } from '../dpop/token-request.js';
import { invalidRequest, oauthError } from '../errors.js';
import { type Params, readForm } from '../http/form.js';
import type { Answer } from '../http/reply.js';
import { type AuthenticatedClient, authenticateClient } from './client-auth/authenticate-client.js';
import { DEVICE_CODE_GRANT } from './device/endpoint.js';
import { deviceCodeGrant } from './device/grant.js';
import { checkProfileClientAuth } from './fapi/profile.js';
import { authorizationCodeGrant } from './grants/authorization-code.js';
import { clientCredentialsGrant } from './grants/client-credentials.js';
import { clientMayUse } from './grants/grant-tokens.js';
import { jwtBearerGrant } from './grants/jwt-bearer.js';
import { refreshTokenGrant } from './grants/refresh-token.js';
import { tokenExchangeGrant } from './grants/token-exchange.js';
import { JWT_BEARER_GRANT } from './jwt-assertion.js';
import { TOKEN_EXCHANGE_GRANT } from './token-exchange/exchanged-token.js';
import { jwtBearerEnabled } from './trusted-issuers.js';

/** One grant type's half of the token request, after client authentication and the DPoP proof. */
type Grant = (
  ctx: Context,
  params: Params,
  client: AuthenticatedClient,
  dpop: DpopProof | undefined,
) => Promise<Answer>;

const GRANTS = {
  authorization_code: authorizationCodeGrant,
  refresh_token: refreshTokenGrant,
  client_credentials: clientCredentialsGrant,
  [DEVICE_CODE_GRANT]: deviceCodeGrant,
  // RFC 8693 and RFC 7523 §2.1: each answers unsupported_grant_type unless configured.
  [TOKEN_EXCHANGE_GRANT]: tokenExchangeGrant,
  [JWT_BEARER_GRANT]: jwtBearerGrant,
} as const satisfies Readonly<Record<string, Grant>>;

/** Extension grants offered only where configured (their options), else `unsupported_grant_type`. */
const CONFIGURED: Readonly<
  Record<string, (ctx: Pick<Context, 'tokenExchange' | 'trustedIssuers'>) => boolean>
> = {
  [TOKEN_EXCHANGE_GRANT]: (ctx) => ctx.tokenExchange !== undefined,
  [JWT_BEARER_GRANT]: jwtBearerEnabled,
};

/** `POST {base}/oauth2/v1/token` (RFC 6749 §3.2). */
export async function tokenEndpoint(request: Request, ctx: Context): Promise<Answer> {
  const params = await readForm(request, ctx.maxBodyBytes);
  const grantType = params.get('grant_type');
  if (grantType === undefined) throw invalidRequest('The "grant_type" parameter is missing.');
  const grant: Grant | undefined = Object.hasOwn(GRANTS, grantType)
    ? GRANTS[grantType as keyof typeof GRANTS]
    : undefined;
  if (!grant || CONFIGURED[grantType]?.(ctx) === false)
    throw oauthError(
      'unsupported_grant_type',
      'The grant type is not supported (see grant_types_supported in the metadata).',
    );
  const client = await authenticateClient(ctx, request, params);
  checkProfileClientAuth(ctx, client);
  if (!clientMayUse(client.client, grantType as keyof typeof GRANTS)) {
    throw oauthError('unauthorized_client', `The client may not use the ${grantType} grant.`);
  }
  // RFC 9449 §5: with a DPoP proof, the tokens are bound to its key.
  const dpop = await tokenRequestProof(ctx, request, client);
  // Awaited here: an async function returning a promise resolves with it two turns later.
  return await grant(ctx, params, client, dpop);
}
