import type { Context } from '../../context.js';
import type { ConsentRecord } from '../../storage/types.js';
import { resourcesCovered } from '../resource-indicators.js';
import { isScopeSubset, parseScope } from '../scope.js';
import { CONSENT_TTL_MS } from './consent-lifetime.js';

/**
 * Whether the user's remembered consent covers a request: its scope and its resources (RFC 8707).
 * A request for a resource the user never allowed this client asks again, so a grant's audience is
 * always one the user consented to.
 */
export async function hasConsent(
  ctx: Context,
  userId: string,
  request: {
    readonly client: { readonly id: string };
    readonly scope: string;
    readonly resources?: readonly string[];
  },
): Promise<boolean> {
  const consent = await liveConsent(ctx, userId, request.client.id, ctx.now());
  return (
    consent !== null &&
    isScopeSubset(request.scope, consent.scope) &&
    resourcesCovered(request.resources, consentedResources(consent))
  );
}

/**
 * The user's remembered consent for the client, unless `revokeUser` marked the user after it was
 * given: a revocation (account compromise, password change) also takes back what the user allowed
 * clients, so each asks again. The time is kept in `ext.consentedAt` (no migration); a consent
 * without it predates this rule and counts as given before any mark.
 */
async function liveConsent(
  ctx: Context,
  userId: string,
  clientId: string,
  now: number,
): Promise<ConsentRecord | null> {
  const consent = await ctx.storage.consents.findConsent(userId, clientId, now);
  if (consent === null) return null;
  const mark = await ctx.storage.grants.subjectRevokedAt?.(userId, now);
  if (mark === undefined || mark === null) return consent;
  const consentedAt = consent.ext?.consentedAt;
  return typeof consentedAt === 'number' && consentedAt > mark ? consent : null;
}

/**
 * The resources a consent covers besides the default audience. Kept in the record's `ext` (the
 * storage contract stores it losslessly on every engine, so no migration): `ext.resources`.
 */
function consentedResources(consent: ConsentRecord | null): readonly string[] | undefined {
  const resources = consent?.ext?.resources;
  return Array.isArray(resources) && resources.every((r) => typeof r === 'string') ? resources : undefined;
}

/**
 * Remembers that the user allowed the client `scope` and `resources`, merged with what they allowed
 * it before (a consent taken back by `revokeUser` is not merged), for {@link CONSENT_TTL_MS}; stamped
 * with when it was given (see {@link liveConsent}).
 */
export async function rememberConsent(
  ctx: Context,
  userId: string,
  clientId: string,
  scope: string,
  resources: readonly string[] | undefined,
): Promise<string> {
  const now = ctx.now();
  const previous = await liveConsent(ctx, userId, clientId, now);
  const merged = [...new Set([...parseScope(previous?.scope ?? ''), ...parseScope(scope)])].join(' ');
  const allResources = [...new Set([...(consentedResources(previous) ?? []), ...(resources ?? [])])];
  await ctx.storage.consents.saveConsent({
    userId,
    clientId,
    scope: merged,
    expiresAt: now + CONSENT_TTL_MS,
    ext: {
      ...previous?.ext,
      ...(allResources.length === 0 ? {} : { resources: allResources }),
      consentedAt: now,
    },
  });
  return merged;
}
