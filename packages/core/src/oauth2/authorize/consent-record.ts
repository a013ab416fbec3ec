import type { Context } from '../../context.js';
import { oauthError } from '../../errors.js';
import type { ConsentMemory } from '../../options.js';
import type { ClientRecord, ConsentRecord } from '../../storage/types.js';
import { resourcesCovered } from '../resource-indicators.js';
import { isScopeSubset, parseScope } from '../scope.js';
import { CONSENT_TTL_MS } from './consent-lifetime.js';
import type { AuthorizationFlow } from './flow.js';

/**
 * Whether the user's remembered consent covers a request: its scope and its resources (RFC 8707).
 * A request for a resource the user never allowed this client asks again, so a grant's audience is
 * always one the user consented to.
 */
export async function hasConsent(
  ctx: Pick<Context, 'clock' | 'storage'>,
  userId: string,
  request: {
    readonly client: { readonly id: string };
    readonly scope: string;
    readonly resources?: readonly string[];
  },
): Promise<boolean> {
  const consent = await liveConsent(ctx, userId, request.client.id, ctx.clock.now());
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
  ctx: Pick<Context, 'storage'>,
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
 * Remembers that the user allowed the client `scope` and `resources` — or what of it the host's
 * policy keeps (`consent.remember`, {@link rememberedPart}) — merged with what they allowed it
 * before (a consent taken back by `revokeUser` is not merged), for {@link CONSENT_TTL_MS} or the
 * policy's shorter `ttl`; stamped with when it was given (see {@link liveConsent}). Answers the
 * scope the consent now covers.
 */
export async function rememberConsent(
  ctx: Pick<Context, 'clock' | 'storage'>,
  flow: AuthorizationFlow,
  userId: string,
  client: Pick<ClientRecord, 'id' | 'firstParty'>,
  scope: string,
  resources: readonly string[] | undefined,
): Promise<string> {
  const kept = await rememberedPart(flow, userId, client, parseScope(scope), resources ?? []);
  const now = ctx.clock.now();
  const previous = await liveConsent(ctx, userId, client.id, now);
  if (kept.ttlMs === 0 || kept.scopes.length === 0) return previous?.scope ?? '';
  const merged = [...new Set([...parseScope(previous?.scope ?? ''), ...kept.scopes])].join(' ');
  const allResources = [...new Set([...(consentedResources(previous) ?? []), ...kept.resources])];
  await ctx.storage.consents.saveConsent({
    userId,
    clientId: client.id,
    scope: merged,
    expiresAt: now + kept.ttlMs,
    ext: {
      ...previous?.ext,
      ...(allResources.length === 0 ? {} : { resources: allResources }),
      consentedAt: now,
    },
  });
  return merged;
}

/**
 * What of a consent is remembered: all of it for {@link CONSENT_TTL_MS}, or what the host's
 * `consent.remember` answers, checked (a subset of what was allowed, a `ttl` of 0 to a year: the
 * year `revokeUser` keeps its mark for, so no remembered consent outlives a mark).
 */
async function rememberedPart(
  flow: Pick<AuthorizationFlow, 'rememberConsent'>,
  userId: string,
  client: Pick<ClientRecord, 'id' | 'firstParty'>,
  scopes: readonly string[],
  resources: readonly string[],
): Promise<{ scopes: readonly string[]; resources: readonly string[]; ttlMs: number }> {
  const policy = flow.rememberConsent;
  if (policy === undefined) return { scopes, resources, ttlMs: CONSENT_TTL_MS };
  let memory: ConsentMemory;
  try {
    memory = await policy({
      userId,
      clientId: client.id,
      firstParty: client.firstParty === true,
      scopes,
      resources,
    });
  } catch (error) {
    throw oauthError('temporarily_unavailable', 'The consent could not be remembered.', {
      retryAfter: 1,
      cause: error,
    });
  }
  const problem = (field: string, detail: string) =>
    new TypeError(`consent.remember answered ${field} ${detail} (for client ${JSON.stringify(client.id)}).`);
  if (typeof memory !== 'object' || memory === null) throw problem('', `${String(memory)}, not an object`);
  const subset = (field: 'scopes' | 'resources', allowed: readonly string[]) => {
    const kept = memory[field];
    if (kept === undefined) return allowed;
    if (!Array.isArray(kept) || kept.some((item) => !allowed.includes(item)))
      throw problem(
        field,
        `${JSON.stringify(kept)}, not a subset of those allowed (${JSON.stringify(allowed)})`,
      );
    return kept;
  };
  const ttl = memory.ttl ?? CONSENT_TTL_MS / 1000;
  if (!Number.isInteger(ttl) || ttl < 0 || ttl * 1000 > CONSENT_TTL_MS)
    throw problem('ttl', `${String(memory.ttl)}, not a whole number of seconds from 0 to 31536000`);
  return { scopes: subset('scopes', scopes), resources: subset('resources', resources), ttlMs: ttl * 1000 };
}
