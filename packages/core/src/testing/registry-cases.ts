import { isStoreFull } from '../storage/store-full.js';
import type { ClientRegistry, RegisteredClient } from '../storage/types.js';
import type { CaseContext } from './conformance-api.js';
import { baseTime, freshId } from './records.js';
import { optionalCase } from './skip.js';

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
        usedAt: now + 1,
      });
      expect(await clients.findClient(id, now + 120_000)).toBeNull();

      const kept = registeredClient(now, { expiresAt: now + 60_000 });
      await clients.saveClient(kept);
      expect(await clients.touchClient(kept.client.id, undefined, now + 2)).toBe(true);
      const { expiresAt: _, ...forever } = kept;
      expect(await clients.findClient(kept.client.id, now + 10_000_000)).toEqual({
        ...forever,
        usedAt: now + 2,
      });

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
        usedAt: now + 1,
      });
    });

    it('keeps usedAt through a replacement, and a later touch moves it', async () => {
      const { clients } = await storage();
      const now = baseTime();
      const registration = registeredClient(now, { expiresAt: now + 60_000, usedAt: now - 5 });
      await clients.saveClient(registration, { partition: 'net:used' });
      expect(await clients.findClient(registration.client.id, now)).toEqual(registration);
      expect(await clients.touchClient(registration.client.id, now + 90_000, now + 7)).toBe(true);
      expect((await clients.findClient(registration.client.id, now + 8))?.usedAt).toBe(now + 7);
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

  describe('client registry listing (listClients, optional)', () => {
    optionalCase(
      api,
      'lists the live registrations newest first, without lapsed or deleted ones, at most limit',
      async (skip) => {
        // A fresh instance of the engine when there is one, so that limit counts this case's only.
        const target = await engine().catch(() => undefined);
        const clients = target?.instance(freshId('listed')).clients ?? (await storage()).clients;
        if (typeof clients.listClients !== 'function')
          skip('the registry has no listClients (the admin API listing, optional)');
        const list = clients.listClients!.bind(clients);
        const now = baseTime();
        const older = registeredClient(now - 2_000);
        const newer = registeredClient(now - 1_000, { expiresAt: now + 60_000 });
        const lapsed = registeredClient(now - 500, { expiresAt: now + 10 });
        const deleted = registeredClient(now - 100);
        const saved = [older, newer, lapsed, deleted];
        for (const registration of saved) await clients.saveClient(registration);
        await clients.deleteClient(deleted.client.id);
        const listed = (await list(now + 10, 100)).filter((r) =>
          saved.some((s) => s.client.id === r.client.id),
        );
        expect(listed).toEqual([newer, older]);
        if (target) expect((await list(now + 10, 1)).length).toBe(1);
      },
    );
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
      expect(await clients.saveClient(fourth, limits)).toEqual({});
      expect(await clients.findClient(fourth.client.id, now + 2_000)).toEqual(fourth);
    });
  });

  describe('client registry fair shares (a full registry makes room from the heaviest partition)', () => {
    /** A fresh instance of the engine (the bound counts every live registration of the instance). */
    const fresh = async () => {
      const target = await engine().catch(() => undefined);
      return target?.instance(freshId('fair')).clients;
    };
    /** Saves a registration of `partition` registered at `at`, live for an hour. */
    const save = async (
      clients: ClientRegistry,
      at: number,
      partition: string | undefined,
      maxClients: number,
    ) => {
      const registration = registeredClient(at, { expiresAt: at + 3_600_000 });
      const saved = await clients.saveClient(registration, {
        maxClients,
        ...(partition === undefined ? {} : { partition }),
      });
      return { id: registration.client.id, saved };
    };
    const refusal = (attempt: Promise<unknown>) =>
      attempt.then(
        () => undefined,
        (error: unknown) => error,
      );

    it("lets a lighter partition's registration evict the heaviest partition's oldest never-used one, and names it", async () => {
      const clients = await fresh();
      if (!clients) return; // stores without an engine: the bound is the engine's, tested there
      const now = baseTime();
      const flood = [];
      for (let i = 0; i < 3; i++) flood.push((await save(clients, now + i, 'net:flood', 4)).id);
      const neighbour = await save(clients, now + 3, 'net:neighbour', 4);
      expect(neighbour.saved).toEqual({});
      // The flood's oldest registration got a token: its second-oldest, never used, goes first.
      expect(await clients.touchClient(flood[0]!, now + 7_200_000, now + 4)).toBe(true);
      const developer = await save(clients, now + 5, 'net:developer', 4);
      expect(developer.saved).toEqual({ evictedClientId: flood[1] });
      expect(await clients.findClient(flood[1]!, now + 5)).toBeNull();
      expect(await clients.findClient(developer.id, now + 5)).not.toBeNull();
      for (const kept of [flood[0]!, flood[2]!, neighbour.id])
        expect(await clients.findClient(kept, now + 5)).not.toBeNull();
    });

    it('refuses the heaviest partition itself (StoreFullError, nothing evicted) and one as heavy as it', async () => {
      const clients = await fresh();
      if (!clients) return;
      const now = baseTime();
      const held = [];
      for (let i = 0; i < 2; i++) held.push((await save(clients, now + i, 'net:a', 4)).id);
      for (let i = 2; i < 4; i++) held.push((await save(clients, now + i, 'net:b', 4)).id);
      const heaviest = registeredClient(now + 4, { expiresAt: now + 3_600_000 });
      expect(
        isStoreFull(await refusal(clients.saveClient(heaviest, { maxClients: 4, partition: 'net:a' }))),
      ).toBe(true);
      expect(await clients.findClient(heaviest.client.id, now + 4)).toBeNull();
      const asHeavy = registeredClient(now + 4, { expiresAt: now + 3_600_000 });
      expect(
        isStoreFull(await refusal(clients.saveClient(asHeavy, { maxClients: 4, partition: 'net:b' }))),
      ).toBe(true);
      for (const id of held) expect(await clients.findClient(id, now + 4)).not.toBeNull();
      // A lighter one evicts net:a's or net:b's oldest (a tie: either is the heaviest).
      const lighter = await save(clients, now + 5, 'net:c', 4);
      expect([held[0], held[2]].includes(lighter.saved.evictedClientId)).toBe(true);
    });

    it('never evicts registrations saved without a partition, and counts them as one partition', async () => {
      const clients = await fresh();
      if (!clients) return;
      const now = baseTime();
      const unpartitioned = [];
      for (let i = 0; i < 2; i++) unpartitioned.push((await save(clients, now + i, undefined, 3)).id);
      const first = await save(clients, now + 2, 'net:first', 3);
      // Full: net:first (1) is the heaviest partition; the unpartitioned two are never a victim.
      const second = await save(clients, now + 3, 'net:second', 3);
      expect(second.saved).toEqual({ evictedClientId: first.id });
      const third = await save(clients, now + 4, 'net:third', 3);
      expect(third.saved).toEqual({ evictedClientId: second.id });
      for (const id of unpartitioned) expect(await clients.findClient(id, now + 4)).not.toBeNull();
      // One more unpartitioned registration holds more than the heaviest partition: refused.
      const another = registeredClient(now + 5, { expiresAt: now + 3_600_000 });
      expect(isStoreFull(await refusal(clients.saveClient(another, { maxClients: 3 })))).toBe(true);

      // Full of unpartitioned registrations only: nothing to evict, a partitioned one is refused.
      const only = await fresh();
      await save(only!, now, undefined, 1);
      const refused = registeredClient(now + 1, { expiresAt: now + 3_600_000 });
      expect(
        isStoreFull(await refusal(only!.saveClient(refused, { maxClients: 1, partition: 'net:x' }))),
      ).toBe(true);
    });

    it("evicts a used registration only once the heaviest partition's never-used ones are gone, oldest first", async () => {
      const clients = await fresh();
      if (!clients) return;
      const now = baseTime();
      const heavy = [];
      for (let i = 0; i < 3; i++) heavy.push((await save(clients, now + i, 'net:heavy', 3)).id);
      expect(await clients.touchClient(heavy[1]!, now + 7_200_000, now + 3)).toBe(true);
      expect(await clients.touchClient(heavy[0]!, now + 7_200_000, now + 4)).toBe(true);
      // The newest registration is the only never-used one: it goes first.
      expect((await save(clients, now + 5, 'net:one', 3)).saved).toEqual({ evictedClientId: heavy[2] });
      // Then the oldest used one, by registration (not by use).
      expect((await save(clients, now + 6, 'net:two', 3)).saved).toEqual({ evictedClientId: heavy[0] });
      expect(await clients.findClient(heavy[1]!, now + 6)).not.toBeNull();
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
