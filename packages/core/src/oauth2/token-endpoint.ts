import type { Context } from '../context.js';
import { invalidRequest, oauthError } from '../errors.js';
import { readForm } from '../http/form.js';
import type { Answer } from '../http/reply.js';
import { authenticateClient } from './client-auth/authenticate-client.js';
import { DEVICE_CODE_GRANT } from './device/endpoint.js';
import { deviceCodeGrant } from './device/grant.js';
import { authorizationCodeGrant } from './grants/authorization-code.js';
import { clientCredentialsGrant } from './grants/client-credentials.js';
import { clientMayUse } from './grants/grant-tokens.js';
import { refreshTokenGrant } from './grants/refresh-token.js';

const GRANTS = {
  authorization_code: authorizationCodeGrant,
  refresh_token: refreshTokenGrant,
  client_credentials: clientCredentialsGrant,
  [DEVICE_CODE_GRANT]: deviceCodeGrant,
} as const;

/** `POST {base}/oauth2/v1/token` (RFC 6749 §3.2). */
export async function tokenEndpoint(request: Request, ctx: Context): Promise<Answer> {
  const params = await readForm(request, ctx.maxBodyBytes);
  const grantType = params.get('grant_type');
  if (grantType === undefined) throw invalidRequest('The "grant_type" parameter is missing.');
  const grant = Object.hasOwn(GRANTS, grantType) ? GRANTS[grantType as keyof typeof GRANTS] : undefined;
  if (!grant)
    throw oauthError(
      'unsupported_grant_type',
      `The grant type is not supported (use authorization_code, refresh_token, client_credentials or ${DEVICE_CODE_GRANT}).`,
    );
  const client = await authenticateClient(ctx, request, params);
  if (!clientMayUse(client.client, grantType as keyof typeof GRANTS)) {
    throw oauthError('unauthorized_client', `The client may not use the ${grantType} grant.`);
  }
  return grant(ctx, params, client);
}
