/**
 * The fault campaign (`pnpm test:faults`): for each engine setup of `setups.ts`, application
 * processes (`app-server.ts`, two or three behind one balancer) under a steady mixed load
 * (`tests/support/load.ts`: code-flow and password sign-ins, bearer checks, refreshes and refresh
 * races, revocations), while each fault is put in place, held, and ended. Each fault gets a row:
 * what was answered, the 5xx that are not 503 (must be 0), the 503s and whether they said
 * `Retry-After`, how long after the engine returned the first sign-in or refresh succeeded,
 * refresh tokens redeemed twice (must be 0), acknowledged grants lost (must be 0 where the setup is
 * durable), grants ended because a retried refresh met its own late-landing first try, revoked
 * tokens accepted after the lag (must be 0), and the processes' heap growth across the row.
 * The table is printed when the campaign ends (and written to `FAULTS_TABLE`, if set).
 */
import { writeFileSync } from 'node:fs';
import { generateKeys } from '@gatehousejs/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Fleet, startFleet } from '../support/engines/app-processes.js';
import { startLoad } from '../support/load.js';
import { type RunningSetup, SETUPS } from './setups.js';

/** The processes' revocation lag (`APP_MAX_LAG_MS`) and storage timeout. */
const LAG_MS = 1000;
const STORAGE_TIMEOUT_MS = 1000;
/** Load before a fault, and after recovery. */
const WARM_MS = 2500;
const SETTLE_MS = 2000;
/** Longest wait for the first success after the engine returned. */
const RECOVERY_LIMIT_MS = 20_000;

const required = process.env.GATEHOUSE_FAULTS_REQUIRED === '1';
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

interface Row {
  readonly setup: string;
  readonly fault: string;
  readonly answered: number;
  readonly unanswered: number;
  readonly serverErrors: number;
  readonly unavailable: string;
  readonly recoverySeconds: string;
  readonly redeemedTwice: number;
  readonly grantsLost: number;
  readonly grantsVerified: number;
  readonly endedByRetry: number;
  readonly revokedAccepted: number;
  readonly revokedChecks: number;
  readonly validRefused: number;
  readonly heapGrowthMb: string;
}
const rows: Row[] = [];

const mb = (bytes: number) => (bytes / 1024 / 1024).toFixed(1);

/** The campaign's table, in Markdown. */
function table(): string {
  const head =
    '| setup | fault | answered | unanswered | 5xx ≠ 503 | 503 (with Retry-After) | recovery (s) | redeemed twice | grants lost / verified | ended by a retried refresh | revoked accepted after lag / checks | valid tokens refused | heap growth (MB) |';
  const rule = `|${' --- |'.repeat(13)}`;
  const lines = rows.map(
    (row) =>
      `| ${row.setup} | ${row.fault} | ${row.answered} | ${row.unanswered} | ${row.serverErrors} | ${row.unavailable} | ${row.recoverySeconds} | ${row.redeemedTwice} | ${row.grantsLost} / ${row.grantsVerified} | ${row.endedByRetry} | ${row.revokedAccepted} / ${row.revokedChecks} | ${row.validRefused} | ${row.heapGrowthMb} |`,
  );
  return [head, rule, ...lines].join('\n');
}

afterAll(() => {
  if (rows.length === 0) return;
  console.log(`\nFault campaign\n\n${table()}\n`);
  if (process.env.FAULTS_TABLE) writeFileSync(process.env.FAULTS_TABLE, `${table()}\n`);
});

for (const setup of SETUPS) {
  const problem = setup.problem();
  if (problem && required) throw new Error(`fault campaign: ${setup.name} cannot run: ${problem}`);
  if (problem) console.warn(`fault campaign: ${setup.name} skipped: ${problem}`);

  describe.skipIf(problem)(setup.name, () => {
    let running: RunningSetup;
    let fleet: Fleet;

    beforeAll(async () => {
      running = await setup.start();
      const keys = JSON.stringify([await generateKeys('ES256'), await generateKeys('RS256')]);
      fleet = await startFleet(
        {
          ...running.env,
          GATEHOUSE_STORE_NAMESPACE: 'gatehouse_faults',
          APP_KEYS: keys,
          APP_MAX_LAG_MS: String(LAG_MS),
          APP_STORAGE_TIMEOUT_MS: String(STORAGE_TIMEOUT_MS),
        },
        setup.processes,
      );
      // A first load, not measured: compiled code, pools and caches settle before the first row.
      const warmUp = startLoad({ origin: fleet.origin, processes: () => fleet.liveOrigins(), lagMs: LAG_MS });
      await sleep(WARM_MS);
      await warmUp.stop();
    }, 120_000);
    afterAll(async () => {
      await fleet?.stop();
      await running?.stop();
    }, 60_000);

    for (const fault of setup.faults) {
      it(fault.name, async () => {
        const actions = running.actions[fault.kind]!;
        const heapsBefore = await fleet.heaps();
        const load = startLoad({ origin: fleet.origin, processes: () => fleet.liveOrigins(), lagMs: LAG_MS });
        await sleep(WARM_MS);
        await actions.inject({ fleet });
        await sleep(fault.holdMs);
        await actions.restore({ fleet });
        const restoredAt = Date.now();
        const deadline = restoredAt + RECOVERY_LIMIT_MS;
        while (load.recoveredAfter(restoredAt) === undefined && Date.now() < deadline) await sleep(100);
        const recovered = load.recoveredAfter(restoredAt);
        await sleep(SETTLE_MS);
        const figures = await load.stop();
        const heapsAfter = await fleet.heaps();
        const growth = Math.max(...heapsAfter.map((after, i) => after - (heapsBefore[i] ?? after)));
        const row: Row = {
          setup: setup.name,
          fault: fault.name,
          answered: figures.answered,
          unanswered: figures.unanswered,
          serverErrors: figures.serverErrors.length,
          unavailable: `${figures.unavailableWithRetryAfter + figures.unavailableWithoutRetryAfter} (${figures.unavailableWithRetryAfter})`,
          recoverySeconds: recovered === undefined ? 'none' : (recovered / 1000).toFixed(1),
          redeemedTwice: figures.redeemedTwice,
          grantsLost: figures.grantsLost.length,
          grantsVerified: figures.grantsVerified,
          endedByRetry: figures.grantsEndedByRetriedRefresh,
          revokedAccepted: figures.revokedAccepted.length,
          revokedChecks: figures.revokedChecks,
          validRefused: figures.validRefused,
          heapGrowthMb: mb(growth),
        };
        rows.push(row);
        console.log(JSON.stringify({ ...row, details: figures }));

        expect(figures.serverErrors, '5xx other than 503').toEqual([]);
        expect(figures.unavailableWithoutRetryAfter, '503 without Retry-After').toBe(0);
        expect(figures.redeemedTwice, 'refresh tokens redeemed twice').toBe(0);
        expect(figures.revokedAccepted, 'revoked tokens accepted after the lag').toEqual([]);
        if (setup.durable) expect(figures.grantsLost, 'acknowledged grants lost').toEqual([]);
        expect(recovered, 'a sign-in or refresh succeeded after the engine returned').toBeDefined();
        expect(figures.refreshes).toBeGreaterThan(0);
      }, 90_000);
    }
  });
}
