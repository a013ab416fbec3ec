import type { Context } from '../context.js';
import type { Answer } from '../http/reply.js';
import { jsonResponse } from '../http/responses.js';
import { freshKeySet } from '../tokens/keys.js';

/** `GET {base}/oauth2/v1/keys`: the public JWKS (RFC 7517 §5), so resource servers can verify tokens. */
export async function jwksEndpoint(_request: Request, ctx: Pick<Context, 'keys'>): Promise<Answer> {
  // A process idle for long re-reads the stored keys first: a relying party caching this answer
  // must get the next key (keys-and-rotation.md).
  const keys = await freshKeySet(ctx.keys);
  return jsonResponse(keys.publicJwks, {
    headers: {
      'Content-Type': 'application/jwk-set+json',
      // With stored keys, under half the lead time: a cached copy is always refetched before a
      // published key starts signing.
      'Cache-Control': `public, max-age=${keys.jwksMaxAge}`,
    },
  });
}
