import type { ClientRecord } from '../../storage/types.js';
import { hashSecret, timingSafeEqual } from '../../tokens/secrets.js';

/**
 * Whether `secret` is `client`'s registered secret: compared by its SHA-256 hash, in constant time.
 * Without a client (or a registered hash) the comparison still runs, against a value no hash can
 * equal, so that response times do not tell which client ids exist. Shared by the methods that
 * carry the secret itself (`client_secret_basic`, `client_secret_post`).
 */
export async function verifyClientSecret(secret: string, client: ClientRecord | undefined): Promise<boolean> {
  const hash = await hashSecret(secret);
  const expected = client?.secretHash ?? hash.replace(/./g, '-');
  return timingSafeEqual(hash, expected) && client !== undefined;
}
