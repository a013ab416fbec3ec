import type { Context } from '../context.js';
import { ConfigurationError, UsageError } from '../errors.js';
import { revokeGrant as revokeWholeGrant } from '../oauth2/grants/grant-tokens.js';
import { ClientRecordError } from '../records/client-record.js';
import type { GrantStore, RefreshTokenRecord } from '../storage/types.js';
import type { EpochMs } from '../time.js';

/** One of a user's grants: a client the user authorized and that can still get tokens ("connected apps"). */
export interface UserGrant {
  /** The grant's id: pass it to `gatehouse.revokeGrant`. */
  readonly grantId: string;
  readonly clientId: string;
  /** The client's display name, when its registration has one. */
  readonly clientName?: string;
  /** The scopes granted (may be empty). */
  readonly scope: readonly string[];
  /** When the user authorized the client (the code was redeemed); absent for grants from before this was recorded. */
  readonly createdAt?: EpochMs;
  /** When the client last obtained tokens with this grant (the live refresh token's issue time). */
  readonly lastUsedAt: EpochMs;
  /** When the grant ends unless the client uses it again (the live refresh token's expiry). */
  readonly expiresAt: EpochMs;
}

/** Options of `gatehouse.revokeGrant`. */
export interface RevokeGrantOptions {
  /**
   * Also forget the user's consent to the grant's client, so that its next authorization request
   * shows the consent page again (the store must have `deleteConsent`). Default `true`: removing a
   * "connected app" should not let it back in silently.
   */
  readonly forgetConsent?: boolean;
}

type UserGrantContext = Omit<Context, 'keys'>;

/** Refuses an empty or non-string user id with a `TypeError` naming the operator call. */
export function checkUserId(method: string, userId: string): void {
  if (typeof userId !== 'string' || userId === '') {
    throw new UsageError(
      `${method}: userId must be a non-empty string (the user id, the \`sub\` claim).`,
      'ERR_INVALID_ARGUMENT',
      'userId',
    );
  }
}

/** The store's listing method, or a precise refusal for host engines written before it. */
function listing(ctx: UserGrantContext, method: string): NonNullable<GrantStore['listUserRefreshTokens']> {
  const { grants } = ctx.storage;
  if (typeof grants.listUserRefreshTokens !== 'function') {
    throw new ConfigurationError(
      `${method}: storage.grants has no listUserRefreshTokens; see "Managing users' sessions and grants" in docs/security.md.`,
      { code: 'ERR_CONFIG_STORE_CAPABILITY', option: 'storage.grants' },
    );
  }
  return grants.listUserRefreshTokens.bind(grants);
}

/** The user's live refresh tokens grouped by grant: the latest-issued one stands for the grant. */
function byGrant(tokens: readonly RefreshTokenRecord[], userId: string): Map<string, RefreshTokenRecord> {
  const grants = new Map<string, RefreshTokenRecord>();
  for (const token of tokens) {
    // An engine must return only this user's tokens; a store bug must not show another's grants.
    if (token.subject.kind !== 'user' || token.subject.userId !== userId) continue;
    const seen = grants.get(token.grantId);
    if (!seen || token.issuedAt > seen.issuedAt) grants.set(token.grantId, token);
  }
  return grants;
}

/** The name of a client, if it has one and a record that can be used (a refused one is logged). */
async function clientName(ctx: UserGrantContext, clientId: string): Promise<string | undefined> {
  try {
    return (await ctx.clients.findClient(clientId))?.name;
  } catch (error) {
    if (error instanceof ClientRecordError) return undefined;
    throw error;
  }
}

/**
 * The grants of `userId` that can still issue tokens, most recently used first: one per grant, from
 * its live refresh token. A grant without a refresh token (a client not allowed the
 * `refresh_token` grant) lives one access-token lifetime and is not listed.
 */
export async function listGrants(ctx: UserGrantContext, userId: string): Promise<UserGrant[]> {
  checkUserId('listGrants', userId);
  const tokens = await listing(ctx, 'listGrants')(userId, ctx.clock.now());
  const grants = [...byGrant(tokens, userId).values()].sort((a, b) => b.issuedAt - a.issuedAt);
  const names = new Map<string, string | undefined>();
  for (const { clientId } of grants) {
    if (!names.has(clientId)) names.set(clientId, await clientName(ctx, clientId));
  }
  return grants.map((token) => {
    const clientName = names.get(token.clientId);
    return {
      grantId: token.grantId,
      clientId: token.clientId,
      ...(clientName === undefined ? {} : { clientName }),
      scope: token.scope === '' ? [] : token.scope.split(' '),
      ...(token.grantedAt === undefined ? {} : { createdAt: token.grantedAt }),
      lastUsedAt: token.issuedAt,
      expiresAt: token.expiresAt,
    };
  });
}

/**
 * Revokes one grant of `userId` (its refresh tokens, codes and access tokens, at once on every
 * instance sharing the store) and, unless told otherwise, forgets the consent to its client.
 * Resolves `false`, changing nothing, when the user has no live grant with this id: a grant id
 * of another user is refused like an unknown one, so a host passing ids from its own UI cannot be
 * made to revoke someone else's grant.
 */
export async function revokeUserGrant(
  ctx: UserGrantContext,
  userId: string,
  grantId: string,
  options: RevokeGrantOptions = {},
): Promise<boolean> {
  checkUserId('revokeGrant', userId);
  if (typeof grantId !== 'string' || grantId === '') {
    throw new UsageError(
      'revokeGrant: grantId must be a non-empty string (from listGrants).',
      'ERR_INVALID_ARGUMENT',
      'grantId',
    );
  }
  const tokens = await listing(ctx, 'revokeGrant')(userId, ctx.clock.now());
  const token = byGrant(tokens, userId).get(grantId);
  if (!token) return false;
  await revokeWholeGrant(ctx, grantId);
  ctx.emit({ type: 'grant.revoked', userId, clientId: token.clientId, grantId });
  if (options.forgetConsent !== false) {
    await ctx.storage.consents.deleteConsent(userId, token.clientId);
    ctx.emit({ type: 'consent.withdrawn', userId, clientId: token.clientId });
  }
  return true;
}
