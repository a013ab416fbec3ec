import {
  type GatehouseStorage,
  memoryEngine,
  memoryStorage as memoryStorageOf,
  type StorageEngine,
} from '@gatehousejs/core';
import {
  type GrantStore,
  type KeyValueStore,
  memoryGrantStore,
  memoryKeyValueStore,
  type RefreshTokenRecord,
} from '@gatehousejs/core/engine';
import { runStorageConformance } from '@gatehousejs/core/testing';
import { afterAll, describe, expect, it } from 'vitest';

const memoryStorage = (grants: GrantStore = memoryGrantStore()): GatehouseStorage => ({
  ...memoryStorageOf(),
  grants,
});

runStorageConformance({ name: 'memory', create: () => memoryEngine() }, { describe, it, expect, afterAll });

/** A runner's signal that a case was skipped (what vitest's `context.skip` throws). */
class Skipped extends Error {}

/**
 * Runs the suite outside vitest and returns the cases that failed, and those skipped with their
 * reasons. Without `withContext` the bodies get no test context, as under Jest.
 */
async function runCases(target: GatehouseStorage | StorageEngine, withContext = true) {
  const cases: { name: string; body: (context?: { skip(note?: string): void }) => Promise<void> }[] = [];
  runStorageConformance(
    { name: 'probe', create: () => target, isolation: 'instance' in target },
    { describe: (_name, body) => body(), it: (name, body) => cases.push({ name, body }), expect },
  );
  const failed: string[] = [];
  const errors: string[] = [];
  const skipped: Record<string, string> = {};
  const context = {
    skip(note?: string): never {
      throw new Skipped(note);
    },
  };
  for (const { name, body } of cases) {
    await body(withContext ? context : undefined).catch((error: unknown) => {
      if (error instanceof Skipped) skipped[name] = error.message;
      else {
        failed.push(name);
        errors.push((error as Error).message);
      }
    });
  }
  return { count: cases.length, failed, errors, skipped };
}

/** The names of the cases that failed. */
async function failingCases(target: GatehouseStorage | StorageEngine): Promise<string[]> {
  return (await runCases(target)).failed;
}

describe('the conformance suite', () => {
  it('reports the cases of optional capabilities an engine lacks as skipped, with the reason', async () => {
    // Each instance its own stores, without the optional methods.
    const views = new Map<string, GatehouseStorage>();
    const minimal: StorageEngine = {
      instance(id) {
        let view = views.get(id);
        if (!view) {
          const {
            revokeSubject: _r,
            subjectRevokedAt: _s,
            listUserRefreshTokens: _l,
            watchRevocations: _w,
            ...grants
          } = memoryGrantStore();
          const rest = memoryStorageOf();
          view = {
            ...rest,
            grants,
            async clear() {
              await rest.clear();
              grants.clear();
            },
          };
          views.set(id, view);
        }
        return view;
      },
    };
    const { failed, skipped } = await runCases(minimal);
    expect(failed).toEqual([]);
    expect(skipped).toEqual({
      "revokes the user's access tokens issued at or before the mark, and nothing else":
        'the grant store has no revokeSubject / subjectRevokedAt (user marks, optional)',
      "refuses the user's codes and refresh tokens issued at or before the mark, in the atomic steps too":
        'the grant store has no revokeSubject / subjectRevokedAt (user marks, optional)',
      'keeps the later mark and the later expiry, and forgets the mark from its expiresAt on':
        'the grant store has no revokeSubject / subjectRevokedAt (user marks, optional)',
      'rounds a fractional mark towards revoking':
        'the grant store has no revokeSubject / subjectRevokedAt (user marks, optional)',
      'lists the live refresh tokens of a user, stored by save, redemption and rotation, with every field':
        "the grant store has no listUserRefreshTokens (a user's grants, optional)",
      "leaves out expired tokens, revoked grants, tokens under the user's mark, other users and client subjects":
        "the grant store has no listUserRefreshTokens (a user's grants, optional)",
      "lists only the instance's own tokens when user ids coincide":
        "the grant store has no listUserRefreshTokens (a user's grants, optional)",
      'delivers a revocation committed by another process before a probe sent after it':
        'the grant store has no watchRevocations (pushed revocations, optional)',
      "does not deliver another instance's revocations":
        'the grant store has no watchRevocations (pushed revocations, optional)',
      'answers a snapshot with every revocation in force, the later expiry and the later mark':
        'the grant store has no watchRevocations (pushed revocations, optional)',
      'loses nothing across a cut channel: lost, then connected again, and the snapshot holds what was revoked meanwhile':
        'the target gives no cutChannel (a way to break the channel once)',
    });
  });

  it('reports the isolation cases of a one-instance target as skipped, and the full memory engine skips only the cut channel', async () => {
    const single = await runCases(memoryStorageOf());
    expect(single.failed).toEqual([]);
    expect(
      single.skipped['keeps codes apart: another instance can neither find, redeem nor overwrite one'],
    ).toBe('isolation: false (the target is one instance’s stores, not an engine)');
    expect(single.skipped["lists only the instance's own tokens when user ids coincide"]).toBe(
      "the target is one instance's stores (isolation: false): nothing to isolate",
    );
    const full = await runCases(memoryEngine());
    expect(full.failed).toEqual([]);
    expect(Object.keys(full.skipped)).toEqual([
      'loses nothing across a cut channel: lost, then connected again, and the snapshot holds what was revoked meanwhile',
    ]);
  });

  it('fails, with the reason, a case it cannot run under a runner without a skip (never a pass)', async () => {
    const { revokeSubject: _r, subjectRevokedAt: _s, ...bare } = memoryGrantStore();
    const { failed, errors } = await runCases(memoryStorage(bare), false);
    expect(failed).toContain('rounds a fractional mark towards revoking');
    expect(errors).toContain(
      "Not run: the grant store has no revokeSubject / subjectRevokedAt (user marks, optional). This test runner cannot mark a case skipped while it runs (vitest's context.skip does).",
    );
  });

  it('passes a store without the one-step exchanges through the two-call fallback', async () => {
    const { exchangeCode: _c, exchangeRefreshToken: _r, ...twoCalls } = memoryGrantStore();
    expect((await runCases(memoryStorage(twoCalls))).failed).toEqual([]);
  });

  it('fails an exchange that writes when a check fails, or skips one', async () => {
    const inner = memoryGrantStore();
    const careless: GrantStore = {
      ...inner,
      // Consumes the code even when a check failed: a wrong verifier burns it.
      async exchangeCode(codeHash, exchange, now) {
        const result = await inner.exchangeCode!(codeHash, exchange, now);
        if (result.status === 'refused') await inner.redeemCode(codeHash, null, now, exchange.keepUntil);
        return result;
      },
      // Ignores the DPoP binding of the token it rotates.
      exchangeRefreshToken: (tokenHash, exchange, now) =>
        inner
          .findRefreshToken(tokenHash, now)
          .then((token) =>
            inner.exchangeRefreshToken!(
              tokenHash,
              { ...exchange, dpopJkt: token?.ext?.dpopJkt as string | undefined },
              now,
            ),
          ),
    };
    const failed = await failingCases(memoryStorage(careless));
    expect(failed).toContain(
      'refuses a failed check by name, writes nothing, and leaves the code redeemable',
    );
    expect(failed).toContain(
      'refuses another client or another key by name, writes nothing, and reports reuse only after the checks',
    );
  });

  it('fails an engine whose check-and-set is not atomic', async () => {
    const inner = memoryGrantStore();
    const racy: GrantStore = {
      ...inner,
      // Reads, yields, then writes: concurrent callers all see the code unconsumed.
      async redeemCode(codeHash, refreshToken, now, keepUntil) {
        const code = await inner.findCode(codeHash, now);
        await new Promise((resolve) => setTimeout(resolve, 1));
        if (!code) return { status: 'invalid' };
        if (code.consumedAt !== undefined) return { status: 'replayed', code };
        const consumed = { ...code, consumedAt: now, expiresAt: Math.max(code.expiresAt, keepUntil) };
        await inner.saveCode(consumed);
        if (refreshToken) await inner.saveRefreshToken(refreshToken);
        return { status: 'redeemed', code: consumed };
      },
    };
    expect(await failingCases(memoryStorage(racy))).toEqual([
      '200 parallel redemptions of one code: exactly one redeemed, the rest replayed',
    ]);
  });

  it('fails an engine that drops a consumed code at its original expiry', async () => {
    const inner = memoryGrantStore();
    const forgetful: GrantStore = {
      ...inner,
      // Ignores keepUntil: the consumed record keeps the code's own 60 s lifetime.
      redeemCode: (codeHash, refreshToken, now) => inner.redeemCode(codeHash, refreshToken, now, 0),
    };
    expect(await failingCases(memoryStorage(forgetful))).toEqual([
      'redeems a code once, storing its refresh token in the same step',
      'reports a second redemption as a replay and writes nothing for it',
      'keeps a consumed code past its own expiry until keepUntil, so a late replay is recognised',
      'keeps a code’s audience, OpenID Connect attributes and extensions, through redemption',
    ]);
  });

  it('fails an engine that forgets grant revocations on bearer checks', async () => {
    const inner = memoryGrantStore();
    const leaky: GrantStore = {
      ...inner,
      isRevoked: (jti, _grantId, now, userId, issuedAt) =>
        inner.isRevoked(jti, undefined, now, userId, issuedAt),
    };
    expect(await failingCases(memoryStorage(leaky))).toEqual([
      'revoking a grant stops its codes, its refresh tokens and its access tokens, and nothing else',
      'remembers a grant revocation until its expiresAt, never shortened by a later call',
    ]);
  });

  it("fails an engine that ignores the user's mark on bearer checks", async () => {
    const inner = memoryGrantStore();
    const leaky: GrantStore = {
      ...inner,
      isRevoked: (jti, grantId, now) => inner.isRevoked(jti, grantId, now),
    };
    expect(await failingCases(memoryStorage(leaky))).toEqual([
      "revokes the user's access tokens issued at or before the mark, and nothing else",
      'keeps the later mark and the later expiry, and forgets the mark from its expiresAt on',
      'rounds a fractional mark towards revoking',
    ]);
  });

  it('fails an engine with only one of the two mark methods', async () => {
    const { subjectRevokedAt: _, ...halfway } = memoryGrantStore();
    expect(await failingCases(memoryStorage(halfway))).toContain(
      "revokes the user's access tokens issued at or before the mark, and nothing else",
    );
  });

  it('fails an engine that keeps records past their expiry', async () => {
    const inner = memoryGrantStore();
    const stale: GrantStore = {
      ...inner,
      findRefreshToken: (tokenHash) => inner.findRefreshToken(tokenHash, 0),
    };
    expect(await failingCases(memoryStorage(stale))).toEqual([
      'finds a saved refresh token with every field intact until it expires',
    ]);
  });

  it("fails an engine that lists rotated refresh tokens among a user's grants", async () => {
    const inner = memoryGrantStore();
    const saved: RefreshTokenRecord[] = [];
    const listsAll: GrantStore = {
      ...inner,
      async saveRefreshToken(record) {
        saved.push(record);
        await inner.saveRefreshToken(record);
      },
      async rotateRefreshToken(tokenHash, next, now) {
        saved.push(next);
        return inner.rotateRefreshToken(tokenHash, next, now);
      },
      async listUserRefreshTokens(userId) {
        return saved.filter((r) => r.subject.kind === 'user' && r.subject.userId === userId);
      },
    };
    expect(await failingCases(memoryStorage(listsAll))).toContain(
      'lists the live refresh tokens of a user, stored by save, redemption and rotation, with every field',
    );
  });

  it('fails an engine whose instances share their records', async () => {
    const shared = memoryStorageOf();
    const leaky: StorageEngine = { instance: () => shared };
    expect(await failingCases(leaky)).toEqual([
      "lists only the instance's own tokens when user ids coincide",
      // The bound counts the instance's registrations: a shared registry holds others' too.
      'refuses a new registration beyond maxClients with StoreFullError, takes replacements, and frees places at expiry and delete',
      "lets a lighter partition's registration evict the heaviest partition's oldest never-used one, and names it",
      'refuses the heaviest partition itself (StoreFullError, nothing evicted) and one as heavy as it',
      'never evicts registrations saved without a partition, and counts them as one partition',
      "evicts a used registration only once the heaviest partition's never-used ones are gone, oldest first",
      'keeps codes apart: another instance can neither find, redeem nor overwrite one',
      'keeps refresh tokens apart: another instance can neither find, rotate nor introspect one',
      'keeps revocations apart: revoking a grant or a jti in one instance leaves the other’s alone',
      'keeps sessions apart: another instance can neither find, touch nor delete one',
      'keeps consents apart for the same user and client ids',
      'keeps rate-limit windows apart: counts, resets and windows of one key are per instance',
      'keeps registered clients and replay ids apart',
      'clear() deletes every record of one instance and nothing of the other',
      'keeps entries of one key apart: another instance can neither see, add over, take nor swap one',
      'keeps counters of one key apart',
      'clear() deletes the entries of one instance and nothing of the other',
      "does not deliver another instance's revocations",
    ]);
  });

  it('fails an engine whose clear() reaches other instances', async () => {
    const inner = memoryEngine();
    const views = new Map<string, GatehouseStorage>();
    const sweeping: StorageEngine = {
      instance(id) {
        const view = inner.instance(id);
        views.set(id, view);
        return {
          ...view,
          async clear() {
            for (const each of views.values()) await each.clear();
          },
        };
      },
    };
    expect(await failingCases(sweeping)).toEqual([
      'clear() deletes every record of one instance and nothing of the other',
      'clear() deletes the entries of one instance and nothing of the other',
    ]);
  });

  /** The suite's failures for a memory engine whose key-value store is `kv`. */
  const failingKeyValueCases = (kv: KeyValueStore) => failingCases({ ...memoryStorageOf(), kv });
  const yieldOnce = () => new Promise((resolve) => setTimeout(resolve, 1));

  it('fails a key-value store whose add, take or swap reads, yields, then writes', async () => {
    const inner = memoryKeyValueStore();
    const racy: KeyValueStore = {
      ...inner,
      async add(key, value, expiresAt, now) {
        const live = await inner.get(key, now);
        await yieldOnce();
        if (live !== null) return false;
        await inner.set(key, value, expiresAt);
        return true;
      },
      async take(key, now) {
        const value = await inner.get(key, now);
        await yieldOnce();
        await inner.delete(key);
        return value;
      },
      async swap(key, expected, value, expiresAt, now) {
        const current = await inner.get(key, now);
        await yieldOnce();
        if (current !== expected) return false;
        await inner.set(key, value, expiresAt);
        return true;
      },
      async increment(key, by, expiresAt, now) {
        const current = await inner.get(key, now);
        await yieldOnce();
        const count = Number(current ?? 0) + by;
        await inner.set(key, String(count), expiresAt);
        return count;
      },
    };
    // The stores built on the key-value store fail with it: they are checked through it.
    expect(await failingKeyValueCases(racy)).toEqual([
      'parallel increments of one rate-limit key each count once',
      'counts within a fixed window and starts a new one when it ends',
      '200 parallel uses of one id: exactly one accepted',
      '200 parallel adds of one key: exactly one added, and its value is stored',
      '200 parallel takes of one key: exactly one gets the value',
      '200 parallel swaps from one value: exactly one wins, and only its write lands',
      'increments a counter from 0, keeps the expiry of its first increment, and starts again once it expired',
      'gives each of concurrent increments its own count: none is lost',
      'a take racing a swap on one key: the value is taken once, never swapped after it was taken',
      'an index moved by compare-and-set rounds: concurrent appends each land once, none lost',
      'a backchannel request: added, decided once of racing decisions, redeemed once of racing polls',
    ]);
  });

  it('fails a key-value store that judges expiry by its own clock instead of the caller’s now', async () => {
    const inner = memoryKeyValueStore();
    const ownClock: KeyValueStore = {
      ...inner,
      get: (key) => inner.get(key, Date.now()),
      add: (key, value, expiresAt) => inner.add(key, value, expiresAt, Date.now()),
      take: (key) => inner.take(key, Date.now()),
      swap: (key, expected, value, expiresAt) => inner.swap(key, expected, value, expiresAt, Date.now()),
      increment: (key, by, expiresAt) => inner.increment(key, by, expiresAt, Date.now()),
    };
    expect(await failingKeyValueCases(ownClock)).toEqual([
      'finds a created session until its expiresAt, and nothing for an unknown hash',
      'counts within a fixed window and starts a new one when it ends',
      'gets a set value until its expiresAt, replaces it on set, and forgets it on delete',
      'adds a key only when it is absent or expired at now',
      'takes a live value once, and nothing absent or expired',
      'swaps only a live value equal to the expected one, and moves its expiry',
      'increments a counter from 0, keeps the expiry of its first increment, and starts again once it expired',
    ]);
  });
});
