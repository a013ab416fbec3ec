import type { ClientRequest } from '../context.js';
import { basicChallenge, oauthError, quoteAuthParam } from '../errors.js';
import { parseBearerToken } from '../http/bearer.js';
import { readForm } from '../http/form.js';
import { authenticateClient } from '../oauth2/client-auth/authenticate-client.js';
import type { ClientRecord } from '../storage/types.js';
import { requireEmptyBody } from './empty-body.js';

/**
 * Who asks to introspect or revoke a token on the Auth API, and which token:
 * - `bearer`: the holder of the token, presenting it as `Authorization: Bearer` with no body;
 * - `client`: a confidential client authenticated with HTTP Basic (RFC 6749 §2.3.1), naming the
 *   token in the `token` field of a form body (as in RFC 7662 §2.1 and RFC 7009 §2.1).
 */
export type TokenCaller =
  | { readonly kind: 'bearer'; readonly token: string }
  | { readonly kind: 'client'; readonly client: ClientRecord; readonly token: string };

/**
 * Identifies the {@link TokenCaller}. Without either credential: 401 `invalid_request` offering both
 * schemes in `WWW-Authenticate` (RFC 9110 §11.6.1). Public clients cannot authenticate, so they
 * cannot use the client form. A malformed Bearer header is 400 `invalid_request` (RFC 6750 §3.1).
 */
export async function readTokenCaller(request: Request, ctx: ClientRequest): Promise<TokenCaller> {
  const bearer = parseBearerToken(request);
  if (bearer !== null) {
    await requireEmptyBody(
      request,
      ctx.limits.maxBodyBytes,
      'A bearer caller acts on its own token and sends no body; clients name a token with HTTP Basic credentials.',
    );
    return { kind: 'bearer', token: bearer };
  }
  if (!/^basic(\s|$)/i.test(request.headers.get('authorization')?.trim() ?? '')) {
    throw oauthError(
      'invalid_request',
      'Present the token as Authorization: Bearer, or authenticate a confidential client with HTTP Basic and send the token in the "token" form field.',
      {
        challenge: `Bearer realm=${quoteAuthParam(ctx.issuer)}, ${basicChallenge(ctx.issuer)}`,
        unauthenticated: true,
      },
    );
  }
  const params = await readForm(request, ctx.limits.maxBodyBytes);
  const { client } = await authenticateClient(ctx, request, params);
  const token = params.require('token');
  params.get('token_type_hint'); // allowed (RFC 7662 §2.1), but only once; there is one token type here
  return { kind: 'client', client, token };
}
