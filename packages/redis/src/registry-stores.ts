import {
  type ClientRegistry,
  type RegisteredClient,
  StoreFullError,
  wholeInstant,
} from '@gatehousejs/core/engine';
import { expireAt, type KeyLayout } from './keys.js';
import {
  deleteClientScript,
  saveClientScript,
  touchClientScript,
  touchLegacyClientScript,
} from './registry-scripts.js';
import type { RedisClient } from './script.js';

/**
 * {@link ClientRegistry} on Redis: one hash per registration, `r` (the registration as JSON,
 * without `expiresAt` and `usedAt`), `exp` (absent while kept until deleted) and `used` (absent
 * while never used), so that a touch rewrites two fields and the JSON is never re-encoded. Redis
 * deletes a lapsed registration (`PEXPIREAT`).
 *
 * `maxClients` is counted on an index of the instance's client ids scored by expiry; who pays for
 * each registration (`partition`) is kept beside it, with each partition's registrations oldest
 * first and its never-used ones, so that a full registry makes room from the heaviest partition
 * (fair shares, issue 41). All of it shares one slot (`{<I>:clients}`, keys.ts), so each save,
 * touch and delete is one script, atomic on a Cluster too.
 *
 * Registrations saved by versions before fair shares stay at their own keys (no partition, never
 * evicted): read, touched and deleted there, never written again.
 */
export function redisClientRegistry(client: RedisClient, keys: KeyLayout): ClientRegistry {
  const indexScore = (expiresAt: number | undefined) =>
    expiresAt === undefined ? '+inf' : String(expireAt(expiresAt));
  const { owners, weights, base } = keys.registryPartitions;
  return {
    async saveClient(record, limits) {
      const { expiresAt, usedAt, ...rest } = record;
      const [saved, evicted] = (await saveClientScript.run(
        client,
        [keys.registeredClients, owners, weights, keys.registeredClient(record.client.id)],
        [
          String(wholeInstant(record.registeredAt)),
          record.client.id,
          indexScore(expiresAt),
          limits?.maxClients === undefined ? '' : String(limits.maxClients),
          limits?.partition ?? '',
          String(wholeInstant(record.registeredAt)),
          JSON.stringify(rest),
          expiresAt === undefined ? '' : expireAt(expiresAt),
          usedAt === undefined ? '' : String(wholeInstant(usedAt)),
          base,
        ],
      )) as [number, string];
      if (saved !== 1)
        throw new StoreFullError('client registry', `at most ${limits?.maxClients} registrations`);
      return evicted === '' ? {} : { evictedClientId: evicted };
    },
    async findClient(clientId, now) {
      return (
        (await registrationAt(client, keys.registeredClient(clientId), now)) ??
        registrationAt(client, keys.legacyRegisteredClient(clientId), now)
      );
    },
    async touchClient(clientId, expiresAt, now) {
      const at = String(wholeInstant(now));
      const exp = expiresAt === undefined ? '' : expireAt(expiresAt);
      const touched = await touchClientScript.run(
        client,
        [keys.registeredClient(clientId), keys.registeredClients, owners],
        [at, exp, indexScore(expiresAt), clientId, base],
      );
      if (touched === 1) return true;
      if (
        (await touchLegacyClientScript.run(client, [keys.legacyRegisteredClient(clientId)], [at, exp])) !== 1
      )
        return false;
      await client.zadd(keys.registeredClients, 'XX', indexScore(expiresAt), clientId);
      return true;
    },
    async listClients(now, limit) {
      // The index holds every live registration's id (legacy ones too), scored by expiry.
      const ids = await client.zrangebyscore(
        keys.registeredClients,
        `(${wholeInstant(now)}`,
        '+inf',
        'LIMIT',
        0,
        limit,
      );
      const found = await Promise.all(
        ids.map(
          async (id) =>
            (await registrationAt(client, keys.registeredClient(id), now)) ??
            registrationAt(client, keys.legacyRegisteredClient(id), now),
        ),
      );
      return found
        .filter((registration): registration is RegisteredClient => registration !== null)
        .sort((a, b) => b.registeredAt - a.registeredAt);
    },
    async deleteClient(clientId) {
      await deleteClientScript.run(
        client,
        [keys.registeredClient(clientId), keys.registeredClients, owners, weights],
        [clientId, base],
      );
      await client.del(keys.legacyRegisteredClient(clientId));
    },
  };
}

/** The live registration stored at `key`, or `null`. */
async function registrationAt(
  client: RedisClient,
  key: string,
  now: number,
): Promise<RegisteredClient | null> {
  const [json, exp, used] = await client.hmget(key, 'r', 'exp', 'used');
  if (json == null || (exp != null && Number(exp) <= wholeInstant(now))) return null;
  const registration = JSON.parse(json) as Omit<RegisteredClient, 'expiresAt' | 'usedAt'>;
  return {
    ...registration,
    ...(exp == null ? {} : { expiresAt: Number(exp) }),
    ...(used == null ? {} : { usedAt: Number(used) }),
  };
}
