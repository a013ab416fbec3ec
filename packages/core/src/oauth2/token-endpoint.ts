import type { Context } from '../context.js';
import type { ProofContext } from '../dpop/proof.js';
import { invalidRequest, oauthError } from '../errors.js';
import type { GrantHandler } from '../feature.js';
import { readForm } from '../http/form.js';
import type { Answer } from '../http/reply.js';
import type { Handler } from '../http/router.js';
import { authenticateClient } from './client-auth/authenticate-client.js';
import { checkProfileClientAuth } from './fapi/profile.js';
import { clientMayUse } from './grants/grant-tokens.js';
import { tokenRequestProof } from './token-request-proof.js';

/** `POST {base}/oauth2/v1/token` (RFC 6749 §3.2). */
export const tokenEndpoint =
  (grants: ReadonlyMap<string, GrantHandler>, dpopChecks: ProofContext): Handler =>
  async (request: Request, ctx: Context): Promise<Answer> => {
    const params = await readForm(request, ctx.limits.maxBodyBytes);
    const grantType = params.get('grant_type');
    if (grantType === undefined) throw invalidRequest('The "grant_type" parameter is missing.');
    // The grant types the instance's features serve (`feature.ts`): Gatehouse's, the configured
    // extensions (token exchange, JWT bearer) and the host's own (`extensionGrants`).
    const grant = grants.get(grantType);
    if (grant === undefined)
      throw oauthError(
        'unsupported_grant_type',
        'The grant type is not supported (see grant_types_supported in the metadata).',
      );
    const client = await authenticateClient(ctx, request, params);
    checkProfileClientAuth(ctx, client);
    if (!clientMayUse(client.client, grantType)) {
      throw oauthError('unauthorized_client', `The client may not use the ${grantType} grant.`);
    }
    // RFC 9449 §5: with a DPoP proof, the tokens are bound to its key.
    const dpop = await tokenRequestProof(ctx, dpopChecks, request, client);
    // Awaited here: an async function returning a promise resolves with it two turns later.
    return await grant(ctx, params, client, dpop);
  };
