import { memoryUserStore } from '@gatehousejs/core';
import { describe, expect, it } from 'vitest';

describe('memoryUserStore', () => {
  it('returns one frozen record per user, without its password hash, on every lookup', async () => {
    const store = memoryUserStore([
      { id: 'u1', username: 'ada', passwordHash: 'not-a-real-hash', claims: { name: 'Ada' } },
    ]);
    const first = await store.findUser('u1');
    expect(first).toEqual({ id: 'u1', username: 'ada', claims: { name: 'Ada' } });
    expect(first).not.toHaveProperty('passwordHash');
    // The same object each time (its record check runs once), so nobody may change it.
    expect(await store.findUser('u1')).toBe(first);
    expect(Object.isFrozen(first)).toBe(true);
    expect(await store.findUser('nobody')).toBeNull();
  });
});
