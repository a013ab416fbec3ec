import { type ClientRecord, memoryClientStore, UsageError } from '@gatehousejs/core';
import { describe, expect, it } from 'vitest';

const client: ClientRecord = { id: 'app', type: 'public', redirectUris: ['https://app.example/callback'] };

describe('memoryClientStore', () => {
  it('finds a client by its id and nothing else', async () => {
    const store = memoryClientStore([client]);
    expect(await store.findClient('app')).toBe(client);
    expect(await store.findClient('other')).toBeNull();
  });

  it('refuses a record without an id at creation, naming its index and the likely misspelling', () => {
    const misspelt = { clientId: 'app', redirectUris: [] } as unknown as ClientRecord;
    expect(() => memoryClientStore([client, misspelt])).toThrow(UsageError);
    expect(() => memoryClientStore([client, misspelt])).toThrow(
      'memoryClientStore: clients[1] has no string "id" (did you mean "id" instead of "clientId"?).',
    );
  });

  it('refuses two records with one id', () => {
    expect(() => memoryClientStore([client, { ...client }])).toThrow('clients[1] repeats the id "app"');
  });
});
