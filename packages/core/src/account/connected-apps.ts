import type { Context } from '../context.js';
import { UsageError } from '../errors.js';
import { revokeGrant } from '../oauth2/grants/grant-tokens.js';
import { checkUserId, listGrants } from '../revocation/user-grants.js';
import type { EpochMs } from '../time.js';

/*
 * Connected apps: the applications that hold access for a user, one entry per client, from the
 * user's live grants (`revocation/user-grants.ts`). What the built-in page at `{base}/account/apps`
 * shows, and what `gatehouse.connectedApps` / `gatehouse.revokeApp` answer to hosts that render
 * their own page.
 */

/** An application that holds access for a user: a client with at least one live grant of the user. */
export interface ConnectedApp {
  readonly clientId: string;
  /** The client's display name, when its registration has one (a self-registered client chose it). */
  readonly clientName?: string;
  /** The scopes its grants hold, together (may be empty: access to the account without a named scope). */
  readonly scope: readonly string[];
  /** When the user first authorized it among its live grants; absent for grants from before this was recorded. */
  readonly since?: EpochMs;
  /** When it last obtained tokens. */
  readonly lastUsedAt: EpochMs;
  /** When its access ends unless it uses it again (the latest expiry of its grants). */
  readonly expiresAt: EpochMs;
  /** How many grants it holds (one per authorization the user gave it that is still live). */
  readonly grants: number;
}

type AppsContext = Omit<Context, 'keys'>;

/**
 * The applications holding access for `userId`, most recently used first. Requires a grant store
 * with `listUserRefreshTokens` (the memory, Redis and PostgreSQL engines); rejects with
 * `ConfigurationError` otherwise, with `TypeError` for an empty `userId`.
 */
export async function connectedApps(ctx: AppsContext, userId: string): Promise<ConnectedApp[]> {
  checkUserId('connectedApps', userId);
  const apps = new Map<string, ConnectedApp>();
  for (const grant of await listGrants(ctx, userId)) {
    const seen = apps.get(grant.clientId);
    const scope = [...new Set([...(seen?.scope ?? []), ...grant.scope])];
    const since = [seen?.since, grant.createdAt].filter((t): t is EpochMs => t !== undefined);
    apps.set(grant.clientId, {
      clientId: grant.clientId,
      ...(grant.clientName === undefined ? {} : { clientName: grant.clientName }),
      scope,
      ...(since.length === 0 ? {} : { since: Math.min(...since) }),
      lastUsedAt: Math.max(seen?.lastUsedAt ?? 0, grant.lastUsedAt),
      expiresAt: Math.max(seen?.expiresAt ?? 0, grant.expiresAt),
      grants: (seen?.grants ?? 0) + 1,
    });
  }
  return [...apps.values()].sort((a, b) => b.lastUsedAt - a.lastUsedAt);
}

/**
 * Ends every grant `userId` gave `clientId`: their refresh tokens and codes get `invalid_grant` at
 * once, their access tokens fail the bearer check (at once with pushed revocations, on every
 * instance sharing the store), and the user's consent to the client is forgotten, so it must ask
 * again. Resolves the number of grants revoked (0: the client held no access; nothing changed).
 * Emits `grant.revoked` per grant and `consent.withdrawn`.
 */
export async function revokeApp(ctx: AppsContext, userId: string, clientId: string): Promise<number> {
  checkUserId('revokeApp', userId);
  if (typeof clientId !== 'string' || clientId === '')
    throw new UsageError(
      'revokeApp: clientId must be a non-empty string (from connectedApps).',
      'ERR_INVALID_ARGUMENT',
      'clientId',
    );
  const grants = (await listGrants(ctx, userId)).filter((grant) => grant.clientId === clientId);
  for (const { grantId } of grants) {
    await revokeGrant(ctx, grantId);
    ctx.emit({ type: 'grant.revoked', userId, clientId, grantId });
  }
  if (grants.length > 0) {
    await ctx.storage.consents.deleteConsent(userId, clientId);
    ctx.emit({ type: 'consent.withdrawn', userId, clientId });
  }
  return grants.length;
}
