import { isStoreFull } from '../storage/store-full.js';
import type { RegisteredClient } from '../storage/types.js';
import type { CaseContext } from './conformance-api.js';
import { baseTime, freshId } from './records.js';

/** A registration of a fresh public client, registered at `now`. */
export function registeredClient(now: number, overrides: Partial<RegisteredClient> = {}): RegisteredClient {
  const id = freshId('registered');
  return {
    client: {
      id,
      name: 'Registered ✓',
      type: 'public',
      redirectUris: ['https://app.example/callback', 'http://127.0.0.1/cb'],
      grantTypes: ['authorization_code', 'refresh_token', 'urn:ietf:params:oauth:grant-type:jwt-bearer'],
      scopes: ['read'],
    },
    registeredAt: now,
    ext: { software_id: 'example', contacts: ['ops@app.example'] },
    ...overrides,
  };
}

/** The client registry (RFC 7591 registrations) and the single-use store of assertion ids. */
export function registryCases({ api, storage, engine, concurrency }: CaseContext): void {
  const { describe, it, expect } = api;

  describe('client registry', () => {
    it('finds a saved registration with every field intact, and nothing for an unknown id', async () => {
      const { clients } = await storage();
      const now = baseTime();
      const registration = registeredClient(now);
      await clients.saveClient(registration);
      expect(await clients.findClient(registration.client.id, now)).toEqual(registration);
      expect(await clients.findClient(freshId('unknown'), now)).toBeNull();
    });

    it('lets a registration lapse at its expiresAt, and moves or lifts the expiry with touch', async () => {
      const { clients } = await storage();
      const now = baseTime();
      const registration = registeredClient(now, { expiresAt: now + 60_000 });
      const id = registration.client.id;
      await clients.saveClient(registration);
      expect(await clients.findClient(id, now + 59_999)).toEqual(registration);
      expect(await clients.touchClient(id, now + 120_000, now + 1)).toBe(true);
      expect(await clients.findClient(id, now + 119_999)).toEqual({
        ...registration,
        expiresAt: now + 120_000,
      });
      expect(await clients.findClient(id, now + 120_000)).toBeNull();

      const kept = registeredClient(now, { expiresAt: now + 60_000 });
      await clients.saveClient(kept);
      expect(await clients.touchClient(kept.client.id, undefined, now + 2)).toBe(true);
      const { expiresAt: _, ...forever } = kept;
      expect(await clients.findClient(kept.client.id, now + 10_000_000)).toEqual(forever);

      const lapsed = registeredClient(now, { expiresAt: now + 10 });
      await clients.saveClient(lapsed);
      expect(await clients.touchClient(lapsed.client.id, now + 60_000, now + 10)).toBe(false);
      expect(await clients.findClient(lapsed.client.id, now + 11)).toBeNull();
    });

    it('keeps a nested extension (as registration features write it) through save, touch and find', async () => {
      const { clients } = await storage();
      const now = baseTime();
      const registration = registeredClient(now, {
        expiresAt: now + 60_000,
        ext: {
          source: 'dynamic_registration',
          metadata: {
            application_type: 'native',
            response_types: ['code'],
            jwks: { keys: [{ kty: 'EC', x: 'é' }] },
          },
          registration_access_token_hash: 'A'.repeat(43),
        },
      });
      await clients.saveClient(registration);
      expect(await clients.touchClient(registration.client.id, now + 120_000, now + 1)).toBe(true);
      expect(await clients.findClient(registration.client.id, now + 60_000)).toEqual({
        ...registration,
        expiresAt: now + 120_000,
      });
    });

    it('replaces a registration on save and deletes it, idempotently, without touching others', async () => {
      const { clients } = await storage();
      const now = baseTime();
      const registration = registeredClient(now);
      const other = registeredClient(now);
      await clients.saveClient(registration);
      await clients.saveClient(other);
      const replaced = {
        ...registration,
        client: { ...registration.client, name: 'Renamed' },
        registeredAt: now + 5,
      };
      await clients.saveClient(replaced);
      expect(await clients.findClient(registration.client.id, now + 5)).toEqual(replaced);
      await clients.deleteClient(registration.client.id);
      await clients.deleteClient(registration.client.id);
      expect(await clients.findClient(registration.client.id, now + 5)).toBeNull();
      expect(await clients.findClient(other.client.id, now + 5)).toEqual(other);
    });
  });

  describe('client registry bound (maxClients)', () => {
    it('refuses a new registration beyond maxClients with StoreFullError, takes replacements, and frees places at expiry and delete', async () => {
      // A fresh instance of the engine: the bound counts every live registration of the instance.
      const target = await engine().catch(() => undefined);
      if (!target) return; // stores without an engine: the bound is the engine's, tested there
      const { clients } = target.instance(freshId('capped'));
      const now = baseTime();
      const limits = { maxClients: 2 };
      const first = registeredClient(now, { expiresAt: now + 60_000 });
      const second = registeredClient(now, { expiresAt: now + 1_000 });
      const third = registeredClient(now, { expiresAt: now + 60_000 });
      await clients.saveClient(first, limits);
      await clients.saveClient(second, limits);
      const refused = await clients.saveClient(third, limits).then(
        () => undefined,
        (error: unknown) => error,
      );
      expect(isStoreFull(refused)).toBe(true);
      expect(await clients.findClient(third.client.id, now)).toBeNull();
      // A replacement of a live registration is no new one.
      const renamed = { ...first, client: { ...first.client, name: 'Renamed' } };
      await clients.saveClient(renamed, limits);
      expect(await clients.findClient(first.client.id, now)).toEqual(renamed);
      // A lapsed registration frees its place, as does a delete.
      await clients.saveClient({ ...third, registeredAt: now + 1_000 }, limits);
      expect(await clients.findClient(third.client.id, now + 1_000)).not.toBeNull();
      await clients.deleteClient(first.client.id);
      const fourth = registeredClient(now + 2_000, { expiresAt: now + 60_000 });
      await clients.saveClient(fourth, limits);
      expect(await clients.findClient(fourth.client.id, now + 2_000)).toEqual(fourth);
    });
  });

  describe('replay store', () => {
    it('accepts an id once until it expires, and refuses an already expired one', async () => {
      const { replay } = await storage();
      const now = baseTime();
      const id = freshId('jti');
      expect(await replay.useOnce(id, now + 60_000, now)).toBe(true);
      expect(await replay.useOnce(id, now + 60_000, now + 1)).toBe(false);
      expect(await replay.useOnce(id, now + 120_000, now + 59_999)).toBe(false);
      expect(await replay.useOnce(freshId('jti'), now, now)).toBe(false);
    });

    it('accepts ids with a partition like any other: the partition never makes a used id new', async () => {
      const { replay } = await storage();
      const now = baseTime();
      const id = freshId('jti');
      expect(await replay.useOnce(id, now + 60_000, now, 'client:a')).toBe(true);
      expect(await replay.useOnce(id, now + 60_000, now + 1, 'client:a')).toBe(false);
      expect(await replay.useOnce(id, now + 60_000, now + 1, 'client:b')).toBe(false);
      expect(await replay.useOnce(id, now + 60_000, now + 1)).toBe(false);
      expect(await replay.useOnce(freshId('jti'), now + 60_000, now + 1, 'client:b')).toBe(true);
    });

    it(`${concurrency} parallel uses of one id: exactly one accepted`, async () => {
      const { replay } = await storage();
      const now = baseTime();
      const id = freshId('jti');
      const results = await Promise.all(
        Array.from({ length: concurrency }, () => replay.useOnce(id, now + 60_000, now)),
      );
      expect(results.filter(Boolean).length).toBe(1);
    });
  });
}
