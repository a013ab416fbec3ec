import { redisStorage } from '@gatehouse/redis';
import { describe } from 'vitest';
import { scaleOutSuite } from '../../core/test/scale-out/harness.js';

const url = process.env.REDIS_URL;
if (!url) console.warn('@gatehouse/redis: REDIS_URL is not set; skipping the multi-process and fault tests.');

describe.skipIf(!url)('redis engine at scale', () => {
  scaleOutSuite({
    store: 'redis',
    url: url!,
    async open(prefix) {
      const storage = redisStorage({ url: url!, prefix });
      await storage.ready();
      return {
        storage,
        async drop() {
          for (const pattern of [`{${prefix}}:*`, `${prefix}:*`]) {
            let cursor = '0';
            do {
              const [next, keys] = await storage.client.scan(cursor, 'MATCH', pattern, 'COUNT', 500);
              if (keys.length > 0) await storage.client.del(...keys);
              cursor = next;
            } while (cursor !== '0');
          }
          await storage.close();
        },
      };
    },
  });
});
