import { memoryConsentStore, memoryGrantStore, memoryRateLimitStore, memorySessionStore } from '@gatehouse/core';
import { runStorageConformance } from '@gatehouse/core/testing';
import { afterAll, describe, expect, it } from 'vitest';

runStorageConformance(
  {
    name: 'memory',
    create: () => ({
      grants: memoryGrantStore(),
      sessions: memorySessionStore(),
      consents: memoryConsentStore(),
      rateLimits: memoryRateLimitStore(),
    }),
  },
  { describe, it, expect, afterAll },
);
