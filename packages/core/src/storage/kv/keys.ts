import { sha256Base64url } from '../../crypto/sha256.js';

/*
 * The keys of the state Gatehouse keeps in an instance's key-value store (host contract v3). They
 * are part of the storage format: the engines' upgrade migrations (PostgreSQL `006_kv_state.sql`,
 * Redis `migrateRedisToKv`) write old records under exactly these keys, so change them only with a
 * migration. Every key is short (under 120 characters) whatever the ids it names.
 *
 *   session:<idHash>                          JSON SessionRecord, until its `expiresAt`
 *   consent:<sha256(userId)>:<sha256(clientId)>  JSON ConsentRecord, until its `expiresAt`
 *   rate:<key>                                 counter of a fixed window, until the window ends
 *   rate-end:<key>                             decimal epoch ms: when that window ends
 *   once:<id>                                  a used single-use id, until it expires
 *   once-quota:<partition>                     counter of a partition's new ids in its window
 *
 * SHA-256 digests are base64url without padding (`sha256Base64url`) of the UTF-8 text.
 */

/** The key of the session whose cookie hashes to `idHash`. */
export const sessionKey = (idHash: string): string => `session:${idHash}`;

/** The key of the consent of `userId` for `clientId`: digests, so any ids fit the 512-character bound. */
export async function consentKey(userId: string, clientId: string): Promise<string> {
  const [user, client] = await Promise.all([sha256Base64url(userId), sha256Base64url(clientId)]);
  return `consent:${user}:${client}`;
}

/** The counter of the rate-limit window `key`. */
export const rateCountKey = (key: string): string => `rate:${key}`;
/** When the rate-limit window `key` ends. */
export const rateEndKey = (key: string): string => `rate-end:${key}`;

/** A used single-use id. */
export const onceKey = (id: string): string => `once:${id}`;
/** The counter of one partition's new single-use ids. */
export const onceQuotaKey = (partition: string): string => `once-quota:${partition}`;

/** The key builders of {@link STATE_KEYS}. */
export interface StateKeys {
  /** `session:<idHash>`. */
  session(idHash: string): string;
  /** `consent:<SHA-256 of the user id>:<SHA-256 of the client id>`. */
  consent(userId: string, clientId: string): Promise<string>;
  /** `rate:<key>`: a window's counter. */
  rateCount(key: string): string;
  /** `rate-end:<key>`: when that window ends. */
  rateEnd(key: string): string;
  /** `once:<id>`: a used single-use id. */
  once(id: string): string;
  /** `once-quota:<partition>`: a partition's counter of new ids. */
  onceQuota(partition: string): string;
}

/**
 * The key builders of the state Gatehouse keeps in `kv`, for engines' upgrade migrations (which
 * write old records under the keys the stores read). Part of the storage format.
 */
export const STATE_KEYS: StateKeys = {
  session: sessionKey,
  consent: consentKey,
  rateCount: rateCountKey,
  rateEnd: rateEndKey,
  once: onceKey,
  onceQuota: onceQuotaKey,
};
