import type { Context, TokenIssuing } from '../../context.js';
import type { GatehouseEvent } from '../../events.js';
import type {
  ClientRecord,
  GrantType,
  RefreshTokenMint,
  RefreshTokenRecord,
  Subject,
} from '../../storage/types.js';
import { addSeconds, type EpochMs, type Milliseconds, secondsToMs } from '../../time.js';
import { type AccessTokenGrant, type SignedAccessToken, signAccessToken } from '../../tokens/access-token.js';
import type { AuthorizationDetail } from '../../tokens/authorization-details.js';
import { randomSecret, secretHash } from '../../tokens/secrets.js';
import type { Writable } from '../../writable.js';

/**
 * The grant tokens are issued from: one subject's authorization of one client, for a scope and
 * resources, with what is known of the authentication behind it. A refresh token record is one.
 */
export type Grant = Pick<
  RefreshTokenRecord,
  | 'grantId'
  | 'clientId'
  | 'subject'
  | 'scope'
  | 'audience'
  | 'authTime'
  | 'sessionId'
  | 'acr'
  | 'amr'
  | 'ext'
  | 'grantedAt'
>;

/** Grant types a client may use: its registration, by default both of Gatehouse's. */
export function clientMayUse(client: ClientRecord, grantType: GrantType): boolean {
  return (client.grantTypes ?? DEFAULT_GRANT_TYPES).includes(grantType);
}

const DEFAULT_GRANT_TYPES: readonly GrantType[] = ['authorization_code', 'refresh_token'];

/** How long a grant revocation must be remembered: as long as anything of the grant can live. */
export function grantLifetimeMs(ctx: Pick<Context, 'tokens'>): Milliseconds {
  return secondsToMs(Math.max(ctx.tokens.refreshTokenTtl, ctx.tokens.accessTokenTtl));
}

/** Revokes a grant (its refresh tokens, codes and access tokens) for as long as it matters. */
export function revokeGrant(
  ctx: Pick<Context, 'storage' | 'clock' | 'tokens'>,
  grantId: string,
): Promise<void> {
  return ctx.storage.grants.revokeGrant(grantId, ctx.clock.now() + grantLifetimeMs(ctx));
}

/**
 * An OAuth 2.0 access token of the grant, for `scope` (the grant's, or a narrower one) and
 * `audience` (the grant's resources, or some of them: RFC 8707; absent, the default audience).
 */
export function grantAccessToken(
  ctx: TokenIssuing,
  grant: Grant,
  scope = grant.scope,
  audience = grant.audience,
  jkt?: string,
  authorizationDetails?: readonly AuthorizationDetail[],
): Promise<SignedAccessToken> {
  const token: Writable<AccessTokenGrant> = {
    family: 'oauth2',
    subject: grant.subject,
    clientId: grant.clientId,
    scope,
    grantId: grant.grantId,
    ttl: ctx.tokens.accessTokenTtl,
  };
  if (audience !== undefined) token.audience = audience;
  // RFC 9449 §6: a DPoP-bound token names the key of the token request's proof.
  if (jkt !== undefined) token.jkt = jkt;
  // RFC 9396 §9.1: the details the token grants, in the token.
  if (authorizationDetails !== undefined) token.authorizationDetails = authorizationDetails;
  return signAccessToken(ctx, token);
}

/**
 * A new refresh token of the grant and the record to store for it (by hash). It always carries
 * the grant's full scope (RFC 6749 §6), so a narrowed refresh can widen back later, and everything
 * else of the grant (resources, authentication time and attributes, extensions) unchanged, so a
 * rotation never loses what the first token knew.
 */
export async function newRefreshToken(
  ctx: Pick<Context, 'randomBytes' | 'tokens'>,
  grant: Grant,
  now: EpochMs,
): Promise<{ token: string; record: RefreshTokenRecord }> {
  const token = randomSecret(ctx.randomBytes);
  return { token, record: refreshTokenRecord(ctx, grant, now, await secretHash(token)) };
}

/**
 * A new refresh token and what a grant store's exchange stores of it: its hash and expiry, bound to
 * `dpopJkt` when given (the store takes the rest from the code or token it is exchanged for).
 */
export async function newRefreshSecret(
  ctx: Pick<Context, 'randomBytes' | 'tokens'>,
  now: EpochMs,
  dpopJkt: string | undefined,
): Promise<{ token: string; mint: RefreshTokenMint }> {
  const token = randomSecret(ctx.randomBytes);
  const mint: Writable<RefreshTokenMint> = {
    tokenHash: await secretHash(token),
    expiresAt: addSeconds(now, ctx.tokens.refreshTokenTtl),
  };
  if (dpopJkt !== undefined) mint.dpopJkt = dpopJkt;
  return { token, mint };
}

/** The record of {@link newRefreshToken}: the grant's members that are set, written one by one. */
function refreshTokenRecord(
  ctx: Pick<Context, 'tokens'>,
  grant: Grant,
  now: EpochMs,
  tokenHash: string,
): RefreshTokenRecord {
  const record: Writable<RefreshTokenRecord> = {
    tokenHash,
    grantId: grant.grantId,
    clientId: grant.clientId,
    subject: grant.subject,
    scope: grant.scope,
    issuedAt: now,
    expiresAt: addSeconds(now, ctx.tokens.refreshTokenTtl),
  };
  if (grant.audience !== undefined) record.audience = grant.audience;
  if (grant.authTime !== undefined) record.authTime = grant.authTime;
  if (grant.sessionId !== undefined) record.sessionId = grant.sessionId;
  if (grant.acr !== undefined) record.acr = grant.acr;
  if (grant.amr !== undefined) record.amr = grant.amr;
  if (grant.ext !== undefined) record.ext = grant.ext;
  if (grant.grantedAt !== undefined) record.grantedAt = grant.grantedAt;
  return record;
}

/**
 * The `token.issued` event: the subject, and the user id when it is a user. One literal for each
 * (no partial object spread into the event on every token request).
 */
export function tokenIssued(clientId: string, subject: Subject, grantType: IssuedGrantType): GatehouseEvent {
  return subject.kind === 'user'
    ? { type: 'token.issued', clientId, subject, userId: subject.userId, grantType }
    : { type: 'token.issued', clientId, subject, grantType };
}

type IssuedGrantType = Extract<GatehouseEvent, { type: 'token.issued' }>['grantType'];
