import type { Context } from '../context.js';
import { oauthError } from '../errors.js';
import type { EpochMs } from '../time.js';
import type { SigningAlgorithm } from '../tokens/keys.js';
import type { KeyRotationSettings } from '../tokens/rotation/settings.js';
import type { SigningKeyInfo, SigningKeys } from '../tokens/rotation/signing-keys.js';
import { earliestStart } from '../tokens/rotation/stored-keys.js';
import { ago, duration } from './wording.js';

/*
 * The keys as the admin API shows them: each key's state with since and until when, and why the
 * signing key is the one it is, in a sentence. The stored record (`keyRotation`) forgets a revoked
 * key at once (it must: its tokens stop verifying), so the admin API keeps a short history of the
 * revocations made through it, beside the record in the key-value store
 * ({@link REVOKED_KEYS_KEY}), to show them and to explain what a revocation brought back.
 */

/** One key, as `listKeys` answers it. */
export interface AdminKey {
  readonly kid: string;
  readonly alg: string;
  readonly state: 'next' | 'signing' | 'retired' | 'revoked';
  /**
   * Since when it is in that state (ISO 8601): published (next), started signing (signing),
   * stopped signing (retired), revoked; `null` when unknown (a key of the `keys` option).
   */
  readonly since: string | null;
  /**
   * Until when (ISO 8601): starts signing (next), stops signing once the next key is scheduled
   * (signing), leaves the key set (retired); `null` when open or unknown.
   */
  readonly until: string | null;
  /** When it was published in the key set; `null` for a key of the `keys` option. */
  readonly publishedAt: string | null;
  /** `stored` (`keyRotation`) or `option` (the `keys` option: changed by configuration). */
  readonly source: 'stored' | 'option';
}

/** The signing key of one algorithm, and why it is the one. */
export interface SigningExplanation {
  readonly kid: string;
  readonly alg: string;
  readonly why: string;
}

/** What `listKeys`, `rotateKeys` and `revokeKey` answer. */
export interface KeysView {
  readonly keys: AdminKey[];
  /** The access tokens' signing key. */
  readonly signing: SigningExplanation;
  /** The signing key of every algorithm the instance signs with. */
  readonly signingKeys: SigningExplanation[];
  readonly rotation: Record<string, unknown>;
}

/** A revocation the admin API made, remembered for {@link REVOKED_KEYS_TTL_MS}. */
interface RevokedKey {
  readonly kid: string;
  readonly alg: SigningAlgorithm;
  readonly revokedAt: EpochMs;
  readonly publishedAt: EpochMs;
  /** Whether it was signing when revoked. */
  readonly wasSigning: boolean;
}

/** The key-value entry of the revocation history. */
export const REVOKED_KEYS_KEY = 'admin:revoked-signing-keys';
/** Revocations remembered: the newest ones. */
export const MAX_REVOKED_KEYS = 20;
/** How long a revocation is remembered (30 days). */
export const REVOKED_KEYS_TTL_MS = 30 * 86_400_000;

type KeysContext = Pick<Context, 'clock' | 'keys' | 'storage' | 'logger'>;

const iso = (at: EpochMs | undefined): string | null =>
  at === undefined ? null : new Date(at).toISOString();

async function revokedKeys(ctx: Pick<Context, 'clock' | 'storage'>): Promise<RevokedKey[]> {
  const now = ctx.clock.now();
  const raw = await ctx.storage.kv.get(REVOKED_KEYS_KEY, now);
  if (raw === null) return [];
  try {
    const entries: unknown = JSON.parse(raw);
    if (!Array.isArray(entries)) return [];
    return (entries as RevokedKey[]).filter(
      (entry) => typeof entry?.kid === 'string' && entry.revokedAt + REVOKED_KEYS_TTL_MS > now,
    );
  } catch {
    return [];
  }
}

/**
 * Remembers a revocation (compare-and-set, a few attempts). The revocation itself is done: a
 * failure here only leaves it out of the history, and is logged.
 */
async function rememberRevocation(ctx: KeysContext, revoked: RevokedKey): Promise<void> {
  const { kv } = ctx.storage;
  try {
    for (let attempt = 0; attempt < 4; attempt++) {
      const now = ctx.clock.now();
      const raw = await kv.get(REVOKED_KEYS_KEY, now);
      const kept = (await revokedKeys(ctx)).filter((entry) => entry.kid !== revoked.kid);
      const value = JSON.stringify([revoked, ...kept].slice(0, MAX_REVOKED_KEYS));
      const expiresAt = now + REVOKED_KEYS_TTL_MS;
      const written =
        raw === null
          ? await kv.add(REVOKED_KEYS_KEY, value, expiresAt, now)
          : await kv.swap(REVOKED_KEYS_KEY, raw, value, expiresAt, now);
      if (written) return;
    }
    ctx.logger.warn(
      'gatehouse: the admin API could not record a key revocation (too many concurrent writes)',
    );
  } catch (error) {
    ctx.logger.warn('gatehouse: the admin API could not record a key revocation', error);
  }
}

/** The keys, their states and why each algorithm's signing key signs. */
export async function keysView(
  ctx: KeysContext,
  keyring: SigningKeys | undefined,
  rotation: KeyRotationSettings | undefined,
): Promise<KeysView> {
  const now = ctx.clock.now();
  const keySet = ctx.keys;
  if (!keyring || !rotation) return optionKeysView(ctx);
  const stored = await keyring.list();
  const revoked = await revokedKeys(ctx);
  const storedKids = new Set(stored.map((key) => key.kid));
  const keys: AdminKey[] = stored.map((key) => storedKey(key));
  for (const entry of revoked) {
    if (storedKids.has(entry.kid)) continue;
    keys.push({
      kid: entry.kid,
      alg: entry.alg,
      state: 'revoked',
      since: iso(entry.revokedAt),
      until: null,
      publishedAt: iso(entry.publishedAt),
      source: 'stored',
    });
  }
  // Keys of the `keys` option still verify (and sign the algorithms not rotated).
  const revokedKids = new Set(revoked.map((entry) => entry.kid));
  for (const [kid, alg] of keySet.keyAlgorithms) {
    if (storedKids.has(kid) || revokedKids.has(kid)) continue;
    keys.push(optionKey(ctx, kid, alg));
  }
  // A rotated algorithm's signing key is the stored one signing now (read from storage above: the
  // request's key set may predate a rotation this request made); the others, the `keys` option's.
  const signingKeys = [...keySet.signers.values()].map((signer): SigningExplanation => {
    const ofAlgorithm = stored.filter((key) => key.algorithm === signer.algorithm);
    const signing = ofAlgorithm.find((key) => key.state === 'signing');
    if (!rotation.algorithms.includes(signer.algorithm) || signing === undefined)
      return { kid: signer.kid, alg: signer.algorithm, why: optionWhy(signer.kid, signer.algorithm) };
    return {
      kid: signing.kid,
      alg: signer.algorithm,
      why: storedWhy(
        ofAlgorithm,
        revoked.filter((entry) => entry.alg === signer.algorithm),
        rotation,
        now,
      ),
    };
  });
  return {
    keys,
    signing: signingKeys.find((key) => key.alg === keySet.algorithm) ?? signingKeys[0]!,
    signingKeys,
    rotation: {
      enabled: true,
      algorithms: [...rotation.algorithms],
      rotateEverySeconds: rotation.rotateEveryMs / 1000,
      leadTimeSeconds: rotation.leadTimeMs / 1000,
      retainForSeconds: rotation.retainForMs / 1000,
      refreshIntervalSeconds: rotation.refreshMs / 1000,
      jwksMaxAgeSeconds: keySet.jwksMaxAge,
    },
  };
}

function storedKey(key: SigningKeyInfo): AdminKey {
  const [since, until] =
    key.state === 'next'
      ? [key.publishedAt, key.signsFrom]
      : key.state === 'signing'
        ? [key.signsFrom, key.signsUntil]
        : [key.signsUntil, key.dropsAt];
  return {
    kid: key.kid,
    alg: key.algorithm,
    state: key.state,
    since: iso(since),
    until: iso(until),
    publishedAt: iso(key.publishedAt),
    source: 'stored',
  };
}

function optionKey(ctx: Pick<Context, 'keys'>, kid: string, alg: SigningAlgorithm): AdminKey {
  const signs = ctx.keys.signers.get(alg)?.kid === kid;
  return {
    kid,
    alg,
    state: signs ? 'signing' : 'retired',
    since: null,
    until: null,
    publishedAt: null,
    source: 'option',
  };
}

function optionWhy(kid: string, alg: string): string {
  return `${kid} is the first ${alg} key of the keys option; those keys are not stored or rotated here (they change by configuration).`;
}

/** Keys of the `keys` option only (`keyRotation` off). */
function optionKeysView(ctx: Pick<Context, 'keys'>): KeysView {
  const keySet = ctx.keys;
  const keys = [...keySet.keyAlgorithms].map(([kid, alg]) => optionKey(ctx, kid, alg));
  const signingKeys = [...keySet.signers.values()].map((signer) => ({
    kid: signer.kid,
    alg: signer.algorithm,
    why: optionWhy(signer.kid, signer.algorithm),
  }));
  return {
    keys,
    signing: signingKeys.find((key) => key.alg === keySet.algorithm) ?? {
      kid: keySet.signingKid,
      alg: keySet.algorithm,
      why: optionWhy(keySet.signingKid, keySet.algorithm),
    },
    signingKeys,
    rotation: { enabled: false, jwksMaxAgeSeconds: keySet.jwksMaxAge },
  };
}

/**
 * Why the signing key of one algorithm is the one it is, from its stored keys (by start), the
 * revocations remembered and the schedule: how it came to sign (on schedule, a rotation on demand,
 * a revocation that made the next key sign or brought the previous one back, the first start),
 * then what comes next.
 */
export function storedWhy(
  keys: readonly SigningKeyInfo[],
  revoked: readonly RevokedKey[],
  rotation: KeyRotationSettings,
  now: EpochMs,
): string {
  const signing = keys.find((key) => key.state === 'signing');
  const next = keys.find((key) => key.state === 'next');
  const parts: string[] = [];
  if (!signing) return 'No stored key of this algorithm signs yet.';
  const lastRevoked = revoked
    .filter((entry) => entry.wasSigning)
    .sort((a, b) => b.revokedAt - a.revokedAt)[0];
  const previous = keys.find((key) => key.state === 'retired' && key.signsUntil === signing.signsFrom);
  if (lastRevoked !== undefined && signing.signsFrom < lastRevoked.revokedAt - 1000) {
    // signingKeyAt: with the signing key gone, the latest key already started signs again.
    parts.push(
      `revoking the signing key ${lastRevoked.kid} ${ago(now - lastRevoked.revokedAt)} brought back the previous one`,
    );
  } else if (lastRevoked !== undefined && Math.abs(signing.signsFrom - lastRevoked.revokedAt) <= 1000) {
    parts.push(
      `revoking the signing key ${lastRevoked.kid} ${ago(now - lastRevoked.revokedAt)} made the next key sign at once`,
    );
  } else if (signing.signsFrom === signing.publishedAt) {
    parts.push(
      `it was made to sign at once ${ago(now - signing.signsFrom)}, when the instance had no key to sign with (no relying party could have cached it)`,
    );
  } else if (
    previous !== undefined &&
    signing.signsFrom - previous.signsFrom < rotation.rotateEveryMs - 1000
  ) {
    parts.push(
      `a rotation on demand made it sign ${ago(now - signing.signsFrom)}, ${duration(signing.signsFrom - signing.publishedAt)} after it was published`,
    );
  } else {
    parts.push(
      `it took over on schedule ${ago(now - signing.signsFrom)} (every ${duration(rotation.rotateEveryMs)})`,
    );
  }
  if (next !== undefined) {
    const published = now - next.publishedAt;
    const ready = earliestStart(next.publishedAt, rotation) <= now;
    parts.push(
      ready
        ? `the next key ${next.kid} has been published for its whole ${duration(rotation.leadTimeMs)} lead time and signs in ${duration(next.signsFrom - now)}`
        : `the next key ${next.kid} has been published for ${duration(published)} of its ${duration(rotation.leadTimeMs)} lead time and signs in ${duration(next.signsFrom - now)}`,
    );
  }
  return `${signing.kid} signs ${signing.algorithm} tokens: ${parts.join('; ')}.`;
}

/** `rotateKeys`: rotates, and says what it cost (`now`) or when the rotation takes effect. */
export async function rotateKeys(
  ctx: KeysContext,
  keyring: SigningKeys | undefined,
  rotation: KeyRotationSettings | undefined,
  now: boolean,
): Promise<KeysView & { readonly cost: string }> {
  if (!keyring || !rotation) throw notRotatable();
  const rotated = await keyring.rotate({ now });
  const at = ctx.clock.now();
  const view = await keysView(ctx, keyring, rotation);
  const maxAge = duration((view.rotation.jwksMaxAgeSeconds as number) * 1000);
  const costs = rotated.map((key) => {
    const published = at - key.publishedAt;
    const lead = duration(rotation.leadTimeMs);
    if (key.signsFrom > at)
      return `No cost: the ${key.algorithm} key ${key.kid} signs in ${duration(key.signsFrom - at)}, once it has been published for its ${lead} lead time; relying parties that cached the key set have time to fetch it.`;
    if (published < rotation.leadTimeMs + rotation.refreshMs)
      return `The ${key.algorithm} key ${key.kid} signs now, ${duration(published)} into its ${lead} lead time: relying parties that cached the key set before it was published (they may keep it ${maxAge}) refuse its tokens until they fetch the key set again, and other processes of this issuer learn it within ${duration(rotation.refreshMs)} (at once on its first token).`;
    return `No cost: the ${key.algorithm} key ${key.kid} signs now, after its whole ${lead} lead time in the key set.`;
  });
  return {
    ...view,
    cost: costs.length > 0 ? costs.join(' ') : 'Nothing rotated: no next key was published yet.',
  };
}

/** `revokeKey`: revokes a stored key and remembers it; 404 for an unknown `kid`. */
export async function revokeKey(
  ctx: KeysContext,
  keyring: SigningKeys | undefined,
  rotation: KeyRotationSettings | undefined,
  kid: string,
): Promise<KeysView> {
  if (!keyring || !rotation) throw notRotatable();
  const before = (await keyring.list()).find((key) => key.kid === kid);
  if (!before) {
    if (ctx.keys.keyAlgorithms.has(kid))
      throw oauthError(
        'not_rotatable',
        'This key is one of the keys option: remove it from the options to revoke it.',
      );
    throw oauthError('not_found', 'No stored key has this kid.');
  }
  if (!(await keyring.revoke(kid))) throw oauthError('not_found', 'No stored key has this kid.');
  await rememberRevocation(ctx, {
    kid,
    alg: before.algorithm,
    revokedAt: ctx.clock.now(),
    publishedAt: before.publishedAt,
    wasSigning: before.state === 'signing',
  });
  return keysView(ctx, keyring, rotation);
}

function notRotatable() {
  return oauthError(
    'not_rotatable',
    'The keys of this instance are the keys option (keyRotation is off): they change by configuration.',
  );
}
