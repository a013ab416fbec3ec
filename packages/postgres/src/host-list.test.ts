/**
 * Connection strings listing several hosts (`target_session_attrs`): read as libpq reads them, and
 * followed across a real failover (a primary and a synchronous streaming standby of the test's own;
 * the primary killed, the standby promoted): the engine's pool and its listening connection move to
 * the new primary by themselves, and what was acknowledged before is there.
 */
import { hashSecret } from '@gatehousejs/core/engine';
import { failFastPoolConfig, migrate, postgresEngine } from '@gatehousejs/postgres';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { postgresServerProblem } from '../../../tests/support/engines/postgres-server.js';
import {
  type PostgresPair,
  startPrimaryAndStandby,
} from '../../../tests/support/engines/postgres-standby.js';
import { waitFor } from '../../../tests/support/engines/processes.js';
import { parseHostList } from './host-list.js';

describe('connection strings listing hosts', () => {
  it('reads every host with its port (5432 when none), IPv6 in brackets, and keeps the other parameters', () => {
    expect(
      parseHostList(
        'postgres://u:p%40ss@db1:5433,db2,[::1]:6000/app?sslmode=disable&target_session_attrs=read-write',
      ),
    ).toEqual({
      connectionString: 'postgres://u:p%40ss@db1:5433/app?sslmode=disable',
      hosts: [
        { host: 'db1', port: 5433 },
        { host: 'db2', port: 5432 },
        { host: '::1', port: 6000 },
      ],
      targetSessionAttrs: 'read-write',
    });
  });

  it('leaves a single host without target_session_attrs to pg, and honours the parameter on one host', () => {
    expect(parseHostList('postgres://u@db1:5432/app')).toBeUndefined();
    expect(parseHostList('postgresql://u@db1/app?target_session_attrs=primary')).toMatchObject({
      hosts: [{ host: 'db1', port: 5432 }],
      targetSessionAttrs: 'primary',
    });
    expect(parseHostList('postgres://db1,db2/app')?.targetSessionAttrs).toBe('any');
  });

  it('refuses session kinds it cannot honour instead of connecting anywhere', () => {
    expect(() => parseHostList('postgres://db1,db2/app?target_session_attrs=prefer-standby')).toThrow(
      /target_session_attrs=prefer-standby is not supported/,
    );
    expect(() => failFastPoolConfig('postgres://db1,db2/app?target_session_attrs=standby')).toThrow(
      TypeError,
    );
  });
});

const problem = postgresServerProblem();
if (problem && process.env.GATEHOUSE_FAULTS_REQUIRED === '1')
  throw new Error(`@gatehousejs/postgres: the failover test cannot run: ${problem}.`);
if (problem) console.warn(`@gatehousejs/postgres: the failover test is skipped: ${problem}.`);

describe.skipIf(problem)('a failover under a connection string listing both hosts', () => {
  let pair: PostgresPair;
  beforeAll(async () => {
    pair = await startPrimaryAndStandby();
  }, 60_000);
  afterAll(() => pair?.destroy());

  it('follows the promoted standby with its pool and its listening connection, and keeps what was acknowledged', async () => {
    // The standby first: read-write sessions are found on the primary whatever the order.
    const standbyFirst = `postgres://postgres@127.0.0.1:${pair.standby.port},127.0.0.1:${pair.primary.port}/gatehouse?target_session_attrs=read-write`;
    const engine = postgresEngine({ connectionString: standbyFirst, sweepIntervalMs: 0 });
    try {
      await migrate(engine.pool);
      const grants = engine.instance('failover').grants;
      const record = (tokenHash: string) => ({
        tokenHash,
        grantId: crypto.randomUUID(),
        clientId: 'client',
        subject: { kind: 'user' as const, userId: 'user' },
        scope: 'openid',
        authTime: Date.now(),
        issuedAt: Date.now(),
        expiresAt: Date.now() + 600_000,
      });
      const before = await hashSecret('before-failover');
      await grants.saveRefreshToken(record(before));
      const echoes = new Set<string>();
      const revoked = new Set<string>();
      let connections = 0;
      const subscription = grants.watchRevocations!({
        connected: () => connections++,
        revoked: (event) => revoked.add(event.id),
        echoed: (id) => echoes.add(id),
        lost() {},
      });
      await waitFor(() => connections === 1, 'the listening connection');

      await pair.failover();
      // The pool's connections to the old primary broke: the next ones find the new primary.
      await waitFor(
        async () => {
          await grants.revokeAccessToken('jti-after-failover', Date.now() + 60_000);
          return true;
        },
        'a write on the new primary',
        { timeoutMs: 15_000, everyMs: 200 },
      );
      expect((await grants.findRefreshToken(before, Date.now()))?.tokenHash).toBe(before);
      expect(await grants.isRevoked('jti-after-failover', undefined, Date.now())).toBe(true);
      // The listening connection reconnected to the new primary: probes and revocations arrive again.
      await waitFor(() => connections === 2, 'the listening connection to reconnect', { timeoutMs: 15_000 });
      await grants.revokeGrant('grant-after-failover', Date.now() + 60_000);
      await subscription.probe('after-failover');
      await waitFor(() => echoes.has('after-failover'), 'the probe to come back');
      expect(revoked.has('grant-after-failover')).toBe(true);
      subscription.unsubscribe();
    } finally {
      await engine.close();
    }
  }, 60_000);
});
