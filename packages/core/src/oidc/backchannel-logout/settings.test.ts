import { ConfigurationError, createGatehouse, memoryClientStore, memoryUserStore } from '@gatehousejs/core';
import { describe, expect, it } from 'vitest';
import { testKey } from '../../../test/fixtures';

async function base() {
  return {
    issuer: 'https://auth.example.com/tenant',
    keys: [await testKey()],
    clients: memoryClientStore([]),
    users: memoryUserStore([]),
  };
}

describe('the backchannelLogout option', () => {
  it.each([
    ['no object', { backchannelLogout: true }, /^backchannelLogout: expected an object/],
    [
      'a transport that is no function',
      { backchannelLogout: { fetch: 'fetch' } },
      /^backchannelLogout\.fetch: expected a function/,
    ],
    [
      'a waitUntil that is no function',
      { backchannelLogout: { waitUntil: {} } },
      /^backchannelLogout\.waitUntil: expected a function/,
    ],
    [
      'a loopback flag that is no boolean',
      { backchannelLogout: { allowLoopback: 'yes' } },
      /^backchannelLogout\.allowLoopback: expected a boolean/,
    ],
    [
      'a deadline below 100 ms',
      { backchannelLogout: { timeoutMs: 10 } },
      /^backchannelLogout\.timeoutMs: expected a whole number from 100 to 30000/,
    ],
    [
      'no attempt at all',
      { backchannelLogout: { maxAttempts: 0 } },
      /^backchannelLogout\.maxAttempts: expected a whole number from 1 to 10/,
    ],
    [
      'a logout token living over 10 minutes',
      { backchannelLogout: { logoutTokenTtl: 3600 } },
      /^backchannelLogout\.logoutTokenTtl: expected a whole number from 10 to 600/,
    ],
    [
      'an instance queue smaller than one client’s',
      { backchannelLogout: { maxQueuedPerClient: 500, maxQueued: 100 } },
      /^backchannelLogout\.maxQueued: expected a whole number from 500 to 1000000/,
    ],
    [
      'a misspelt option',
      { backchannelLogout: { timeout: 100 } },
      /^backchannelLogout\.timeout: unknown option/,
    ],
  ])('refuses %s with a precise message', async (_name, override, message) => {
    const options = { ...(await base()), ...(override as object) } as Parameters<typeof createGatehouse>[0];
    expect(() => createGatehouse(options)).toThrow(ConfigurationError);
    expect(() => createGatehouse(options)).toThrow(message);
  });

  it('accepts {} (the defaults) and every bound', async () => {
    const gatehouse = createGatehouse({
      ...(await base()),
      backchannelLogout: {
        allowLoopback: false,
        timeoutMs: 2000,
        maxAttempts: 3,
        retryDelayMs: 500,
        maxConcurrentDeliveries: 4,
        maxQueuedPerClient: 10,
        maxQueued: 1000,
        logoutTokenTtl: 60,
        maxClientsPerSession: 8,
        waitUntil: () => {},
      },
    });
    await gatehouse.ready();
    expect(gatehouse.metadata()).toMatchObject({ backchannel_logout_supported: true });
    await createGatehouse({ ...(await base()), backchannelLogout: {} }).ready();
  });
});
