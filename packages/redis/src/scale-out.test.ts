import { redisStorage } from '@gatehouse/redis';
import { describe } from 'vitest';
import { scaleOutSuite } from '../../core/test/scale-out/harness.js';
import { dropPrefix } from '../test/drop-prefix.js';

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
          await dropPrefix(storage, prefix);
          await storage.close();
        },
      };
    },
  });
});
