/**
 * Cleanup for tests whose application processes used the machine's Redis or PostgreSQL in a
 * namespace of their own (`GATEHOUSE_STORE_NAMESPACE`: a key prefix, a schema): removes it.
 */
import { postgresEngine } from '@gatehousejs/postgres';
import { redisEngine } from '@gatehousejs/redis';
import { dropPrefix } from '../../../packages/redis/test/drop-prefix.js';

/** Deletes the namespace's keys (Redis) or schema (PostgreSQL). */
export async function dropNamespace(
  store: 'redis' | 'postgres',
  url: string,
  namespace: string,
): Promise<void> {
  if (store === 'redis') {
    const engine = redisEngine({ url, prefix: namespace });
    try {
      await engine.ready();
      await dropPrefix(engine, namespace);
    } finally {
      await engine.close();
    }
    return;
  }
  const engine = postgresEngine({ connectionString: url, sweepIntervalMs: 0 });
  try {
    await engine.pool.query(`DROP SCHEMA IF EXISTS "${namespace.replaceAll('"', '""')}" CASCADE`);
  } finally {
    await engine.close();
  }
}
