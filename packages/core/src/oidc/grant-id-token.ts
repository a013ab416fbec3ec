import type { Awaitable } from '../awaitable.js';
import type { Context, TokenSigning } from '../context.js';
import { parseScope, scopeIncludes } from '../oauth2/scope.js';
import type { ClientRecord, Subject } from '../storage/types.js';
import { hostClaims } from '../tokens/host-claims.js';
import { idTokenAlgorithm, signIdToken } from './id-token.js';
import { claimsForScope, SCOPE_CLAIMS } from './standard-claims.js';

/** What an ID token of a grant is made of, besides the client. */
export interface IdTokenGrant {
  /** Who the grant speaks for: ID tokens are about users only. */
  readonly subject: Subject;
  /** The scope of the tokens issued with it. */
  readonly scope: string;
  /** The grant's resources (RFC 8707), for the `claims` hook. */
  readonly audience?: readonly string[];
  /** When the user authenticated (epoch ms), kept from the code through every refresh. */
  readonly authTime?: number;
  /** Only from the code exchange: a refreshed ID token carries none (Core §12.2). */
  readonly nonce?: string;
  /** The public id of the session the grant started in: the ID token's `sid`. */
  readonly sessionId?: string;
  /** How the user authenticated (`acr`, `amr`), kept from the sign-in through every refresh. */
  readonly acr?: string;
  readonly amr?: readonly string[];
}

/**
 * The ID token of a token response (OpenID Connect Core §3.1.3.3, §12.2), or `undefined` when the
 * scope has no `openid` or the grant is a client's own (no user to speak of): signed with the client's algorithm, `at_hash` of the access token, and the
 * user's standard claims for the granted scopes (which Core §5.4 lets an OP put in the ID token as
 * well as at userinfo; relying parties such as Auth.js read the profile from it). The user is
 * looked up only when a claim-bearing scope was granted. Without an ID token to sign, the answer
 * comes at once, with no promise (a refresh of an API client's grant, a code of a plain OAuth request).
 */
export function grantIdToken(
  ctx: TokenSigning & Pick<Context, 'users' | 'tokens'>,
  client: ClientRecord,
  grant: IdTokenGrant,
  accessToken: string,
): Awaitable<string | undefined> {
  if (!scopeIncludes(grant.scope, 'openid') || grant.subject.kind !== 'user') return undefined;
  return signedIdToken(ctx, client, grant, grant.subject.userId, parseScope(grant.scope), accessToken);
}

/** The ID token of {@link grantIdToken}, for a user's grant with `openid`. */
async function signedIdToken(
  ctx: TokenSigning & Pick<Context, 'users' | 'tokens'>,
  client: ClientRecord,
  grant: IdTokenGrant,
  userId: string,
  scopes: readonly string[],
  accessToken: string,
): Promise<string> {
  const needsClaims = scopes.some((scope) => Object.hasOwn(SCOPE_CLAIMS, scope));
  const user = needsClaims ? await ctx.users.findUser(userId) : null;
  // Without a hook there are no host claims, and its request is not built.
  const extra =
    ctx.tokens.claims === undefined
      ? undefined
      : await hostClaims(ctx, {
          target: 'id_token',
          sub: userId,
          subjectKind: 'user',
          clientId: client.id,
          scopes,
          resources: grant.audience ?? [],
          ...(needsClaims ? { user } : {}),
        });
  const claims = { ...(user?.claims ? claimsForScope(user.claims, grant.scope) : {}), ...extra };
  return signIdToken(ctx, {
    userId,
    clientId: client.id,
    accessToken,
    algorithm: idTokenAlgorithm(ctx.keys, client),
    ...(grant.authTime === undefined ? {} : { authTime: grant.authTime }),
    ...(grant.nonce === undefined ? {} : { nonce: grant.nonce }),
    ...(grant.sessionId === undefined ? {} : { sid: grant.sessionId }),
    ...(grant.acr === undefined ? {} : { acr: grant.acr }),
    ...(grant.amr === undefined ? {} : { amr: grant.amr }),
    ...(Object.keys(claims).length === 0 ? {} : { claims }),
  });
}
