import {
  type ClientRegistry,
  type RegisteredClient,
  StoreFullError,
  wholeInstant,
} from '@gatehousejs/core/engine';
import { throwOnFailedStep } from './grant-store.js';
import { expireAt, type KeyLayout } from './keys.js';
import { reserveClientScript, touchClientScript } from './registry-scripts.js';
import type { RedisClient } from './script.js';

/**
 * {@link ClientRegistry} on Redis: one hash per registration, `r` (the registration as JSON,
 * without `expiresAt`) and `exp` (absent while kept until deleted), so that a touch rewrites one
 * field and the JSON is never re-encoded. Redis deletes a lapsed registration (`PEXPIREAT`).
 *
 * `maxClients` is counted on an index of the instance's client ids scored by expiry (its own key,
 * so that it works on a Cluster): a new registration first takes a place there, atomically, and
 * is refused with `StoreFullError` when there is none; a place is freed at the registration's
 * expiry or delete.
 */
export function redisClientRegistry(client: RedisClient, keys: KeyLayout): ClientRegistry {
  const indexScore = (expiresAt: number | undefined) =>
    expiresAt === undefined ? '+inf' : String(expireAt(expiresAt));
  return {
    async saveClient(record, limits) {
      const { expiresAt, ...rest } = record;
      const reserved = await reserveClientScript.run(
        client,
        [keys.registeredClients],
        [
          String(wholeInstant(record.registeredAt)),
          record.client.id,
          indexScore(expiresAt),
          limits?.maxClients === undefined ? '' : String(limits.maxClients),
        ],
      );
      if (reserved !== 1)
        throw new StoreFullError('client registry', `at most ${limits?.maxClients} registrations`);
      const key = keys.registeredClient(record.client.id);
      const transaction = client.multi().del(key).hset(key, 'r', JSON.stringify(rest));
      if (expiresAt !== undefined)
        transaction.hset(key, 'exp', expireAt(expiresAt)).pexpireat(key, expireAt(expiresAt));
      await transaction.exec().then(throwOnFailedStep);
    },
    async findClient(clientId, now) {
      const [json, exp] = await client.hmget(keys.registeredClient(clientId), 'r', 'exp');
      if (json == null || (exp != null && Number(exp) <= wholeInstant(now))) return null;
      const registration = JSON.parse(json) as Omit<RegisteredClient, 'expiresAt'>;
      return exp == null ? registration : { ...registration, expiresAt: Number(exp) };
    },
    async touchClient(clientId, expiresAt, now) {
      const touched = await touchClientScript.run(
        client,
        [keys.registeredClient(clientId)],
        [String(wholeInstant(now)), expiresAt === undefined ? '' : expireAt(expiresAt)],
      );
      if (touched !== 1) return false;
      await client.zadd(keys.registeredClients, 'XX', indexScore(expiresAt), clientId);
      return true;
    },
    async deleteClient(clientId) {
      await client.del(keys.registeredClient(clientId));
      await client.zrem(keys.registeredClients, clientId);
    },
  };
}
