import type { GatehouseStorage } from '@gatehousejs/core';
import { createGatehouse, generateKeys, memoryClientStore, memoryUserStore } from '@gatehousejs/core';
import { expect } from 'vitest';

/**
 * Dynamic registration through two instances of one issuer sharing `storage` (two processes of a
 * deployment): a client registered through one is found, read (RFC 7592) and deleted through the
 * other, and the deletion holds for both. Engine packages call it with their storage.
 */
export async function expectRegistrationsShared(storage: GatehouseStorage): Promise<void> {
  const keys = [await generateKeys('ES256')];
  const issuer = `https://auth.example/${crypto.randomUUID()}`;
  const startProcess = () =>
    createGatehouse({
      issuer,
      keys,
      clients: memoryClientStore([]),
      users: memoryUserStore([]),
      storage,
      dynamicRegistration: {},
      logger: { warn() {}, error() {} },
    });
  const [a, b] = [startProcess(), startProcess()];
  const registered = await a.fetch(
    new Request(`${issuer}/oauth2/v1/register`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ client_name: 'Shared ✓', redirect_uris: ['https://app.example/cb'] }),
    }),
  );
  expect(registered.status).toBe(201);
  const client = (await registered.json()) as Record<string, string>;
  const configuration = (gatehouse: typeof a, method: string) =>
    gatehouse.fetch(
      new Request(client.registration_client_uri!, {
        method,
        headers: { Authorization: `Bearer ${client.registration_access_token}` },
      }),
    );
  const read = await configuration(b, 'GET');
  expect(read.status).toBe(200);
  expect(await read.json()).toMatchObject({ client_id: client.client_id, client_name: 'Shared ✓' });
  const authorize = (gatehouse: typeof a) =>
    gatehouse.fetch(
      new Request(
        `${issuer}/oauth2/v1/authorize?${new URLSearchParams({
          response_type: 'code',
          client_id: client.client_id!,
          redirect_uri: 'https://app.example/cb',
          code_challenge: 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM',
          code_challenge_method: 'S256',
        })}`,
        { headers: { Accept: 'text/html' } },
      ),
    );
  // The client is known: the browser is sent to the login page's interaction.
  const known = await authorize(b);
  expect(known.status).toBe(303);
  expect(new URL(known.headers.get('location')!).searchParams.has('interaction')).toBe(true);
  expect((await configuration(b, 'DELETE')).status).toBe(204);
  expect((await configuration(a, 'GET')).status).toBe(401);
  expect((await authorize(a)).status).toBe(400);
}
