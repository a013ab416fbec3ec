import type { Context } from '../context.js';
import { invalidClient, invalidRequest } from '../errors.js';
import { parseBasicAuth } from '../http/basic-auth.js';
import type { Params } from '../http/form.js';
import type { ClientRecord } from '../storage/types.js';
import { hashSecret, timingSafeEqual } from '../tokens/secrets.js';

/** A client whose identity the request proved (or, for public clients, claimed). */
export interface AuthenticatedClient {
  readonly client: ClientRecord;
  /** `client_secret_basic` or `none` (public client, `client_id` in the body). */
  readonly method: 'client_secret_basic' | 'none';
}

/**
 * Authenticates the client of a token, revocation or introspection request (RFC 6749 §2.3):
 * HTTP Basic with form-urlencoded id and secret for confidential clients, `client_id` in the body
 * for public clients. Using two methods at once is `invalid_request` (§2.3); a secret in the body
 * (`client_secret_post`) is not supported. Unknown client and wrong secret fail identically
 * (401 `invalid_client` with a Basic challenge), after the same amount of hashing.
 */
export async function authenticateClient(
  ctx: Context,
  request: Request,
  params: Params,
): Promise<AuthenticatedClient> {
  const basic = readBasicCredentials(ctx, request);
  const bodyClientId = params.get('client_id');
  if (params.has('client_secret')) {
    throw invalidRequest(
      'Send client credentials with HTTP Basic authentication, not client_secret in the body.',
    );
  }
  if (basic) {
    // A matching client_id in the body is no second method (many client libraries send it).
    if (bodyClientId !== undefined && bodyClientId !== basic.username) {
      throw invalidRequest('The client_id in the body differs from the authenticated client.');
    }
    const client = await ctx.clients.findClient(basic.username);
    const presented = await hashSecret(basic.password);
    const expected =
      client?.type === 'confidential' && client.secretHash ? client.secretHash : presented.replace(/./g, '-');
    const matches = timingSafeEqual(presented, expected);
    if (client?.type !== 'confidential' || !matches) throw invalidClient(ctx.realm);
    return { client, method: 'client_secret_basic' };
  }
  if (bodyClientId === undefined) throw invalidClient(ctx.realm);
  const client = await ctx.clients.findClient(bodyClientId);
  // A confidential client must prove itself; answering like an unknown client hides which ids exist.
  if (client?.type !== 'public') throw invalidClient(ctx.realm);
  return { client, method: 'none' };
}

/**
 * The client's Basic credentials, or `null` without a Basic header. A malformed Basic header is a
 * failed client authentication: 401 `invalid_client` with the challenge (RFC 6749 §5.2).
 */
function readBasicCredentials(ctx: Context, request: Request) {
  try {
    return parseBasicAuth(request.headers.get('authorization'), { formEncoded: true });
  } catch {
    throw invalidClient(ctx.realm);
  }
}
