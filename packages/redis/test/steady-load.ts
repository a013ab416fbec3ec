/**
 * A small steady load on Gatehouse server processes (the scale-out server, the demo instance), as
 * the demo client and user would make it, for fault tests: code redemptions, refreshes, bearer
 * checks and revocations, spread over the servers so that what one process wrote another serves.
 * Every answer is recorded with its time, so that a test can cut the record at each fault; and what
 * may never happen is counted as it happens (a revoked token accepted after the lag, a token
 * acknowledged by a 200 and then unknown).
 */
import { type GatehouseStorage, generateKeys } from '@gatehousejs/core';
import { hashSecret } from '@gatehousejs/core/engine';
import { type RedisStorage, type RedisStorageOptions, redisStorage } from '@gatehousejs/redis';
import { expect } from 'vitest';
import { waitFor } from '../../../tests/support/engines/redis-server.js';
import { type ServerProcess, startServer } from '../../core/test/scale-out/processes.js';
import { dropPrefix } from './drop-prefix.js';

const REDIRECT_URI = 'http://localhost:3999/callback';
const CLIENT_AUTH = `Basic ${btoa('demo-client:demo-secret')}`;
const PKCE_VERIFIER = 'dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk';
const PKCE_CHALLENGE = 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM';

/** One answer: when it came, to what, its status (0: no HTTP answer at all) and `Retry-After`. */
export interface Answer {
  readonly at: number;
  readonly kind: 'redeem' | 'refresh' | 'bearer' | 'revoke' | 'revoked-check';
  readonly status: number;
  readonly retryAfter: string | null;
}

/** What a load run saw. Times are `Date.now()`. */
export interface LoadRecord {
  readonly answers: Answer[];
  /** Refresh tokens whose rotation was answered 200, with the time: presenting one again must fail. */
  readonly rotated: { token: string; at: number }[];
  /** Codes redeemed with a 200: presenting one again must fail. */
  readonly redeemed: { code: string; at: number }[];
  /** Access tokens whose revocation was answered 200, with the time. */
  readonly revoked: { token: string; at: number }[];
  /** A revoked token's bearer check answered 204 more than the lag after its revocation. */
  readonly acceptedAfterLag: { at: number; revokedAt: number }[];
  /**
   * A refresh token issued with a 200, refused (`invalid_grant`) at its first use though neither
   * revoked nor presented before: an acknowledged write the engine lost.
   */
  readonly lostAcknowledged: { at: number; issuedAt: number }[];
  /**
   * A refresh token refused after its rotation was answered 503 and asked again: the first request
   * had rotated it after all (its answer lost to the fault), so the retry is a reuse (RFC 9700
   * §4.14.2) and the grant is revoked. The user signs in again; nothing is accepted twice.
   */
  readonly lostAfterUnavailable: { at: number }[];
}

/** Options of {@link steadyLoad}. */
export interface SteadyLoadOptions {
  /** The servers' instance bases (`http://127.0.0.1:<port>/demo`). */
  readonly servers: readonly string[];
  /** A handle on the servers' storage, for the codes the authorization endpoint would store. */
  readonly storage: GatehouseStorage;
  /** Concurrent clients. Default 4. */
  readonly workers?: number;
  /** Pause of each client between two requests, in ms. Default 20. */
  readonly pauseMs?: number;
  /** The servers' `pushedRevocations.maxLagMs`: a revoked token accepted later than this is counted. */
  readonly maxLagMs: number;
}

/** A running load: stop it to get the complete record. */
export interface SteadyLoad {
  readonly record: LoadRecord;
  /** Stores `count` codes ahead (each valid 60 s), so that redemptions need no write of the test's own during a fault. */
  mintCodes(count: number): Promise<void>;
  stop(): Promise<void>;
}

/** POSTs a form as the demo client. */
function post(base: string, path: string, form: Record<string, string>) {
  return fetch(base + path, {
    method: 'POST',
    headers: { 'Content-Type': 'application/x-www-form-urlencoded', Authorization: CLIENT_AUTH },
    body: new URLSearchParams(form),
  });
}

/** Starts the load (see the module comment). */
export function steadyLoad(options: SteadyLoadOptions): SteadyLoad {
  const record: LoadRecord = {
    answers: [],
    rotated: [],
    redeemed: [],
    revoked: [],
    acceptedAfterLag: [],
    lostAcknowledged: [],
    lostAfterUnavailable: [],
  };
  const codes: string[] = [];
  let running = true;
  const { servers } = options;

  const mintCode = async () => {
    const code = `code-${crypto.randomUUID()}-${crypto.randomUUID()}`;
    const now = Date.now();
    await options.storage.grants.saveCode({
      codeHash: await hashSecret(code),
      clientId: 'demo-client',
      userId: 'user-demo',
      grantId: crypto.randomUUID(),
      redirectUri: REDIRECT_URI,
      scope: 'openid offline_access tickets:read',
      codeChallenge: PKCE_CHALLENGE,
      authTime: now,
      expiresAt: now + 60_000,
    });
    return code;
  };

  /** Sends a request, records its answer; resolves to the answer and its JSON body, if any. */
  const call = async (kind: Answer['kind'], send: () => Promise<Response>) => {
    let status = 0;
    let retryAfter: string | null = null;
    let body: Record<string, string> = {};
    try {
      const response = await send();
      status = response.status;
      retryAfter = response.headers.get('retry-after');
      const text = await response.text();
      if (text.startsWith('{')) body = JSON.parse(text);
    } catch {
      // No HTTP answer (status 0).
    }
    record.answers.push({ at: Date.now(), kind, status, retryAfter });
    return { status, body };
  };
  const bearer = (base: string, token: string) =>
    fetch(`${base}/bearer-check`, { headers: { Authorization: `Bearer ${token}` } });

  const worker = async (index: number) => {
    let grant: { access: string; refresh: string; issuedAt: number; retried: boolean } | undefined;
    for (let n = index; running; n++) {
      const server = (shift: number) => servers[(n + shift) % servers.length]!;
      if (!grant) {
        let code = codes.pop();
        if (code === undefined) code = await mintCode().catch(() => undefined);
        if (code !== undefined) {
          const { status, body } = await call('redeem', () =>
            post(server(0), '/oauth2/v1/token', {
              grant_type: 'authorization_code',
              code,
              redirect_uri: REDIRECT_URI,
              code_verifier: PKCE_VERIFIER,
            }),
          );
          // A 503 leaves the code in doubt: a client starts the sign-in again, never re-sends it.
          if (status === 200) {
            grant = {
              access: body.access_token!,
              refresh: body.refresh_token!,
              issuedAt: Date.now(),
              retried: false,
            };
            record.redeemed.push({ code, at: Date.now() });
          }
        }
      } else if (n % 10 === 0) {
        const { status } = await call('revoke', () =>
          post(server(0), '/oauth2/v1/revoke', { token: grant!.access }),
        );
        if (status === 200) {
          record.revoked.push({ token: grant.access, at: Date.now() });
          grant = undefined;
        }
      } else if (n % 3 === 0) {
        const presented = grant;
        const { status, body } = await call('refresh', () =>
          post(server(1), '/oauth2/v1/token', {
            grant_type: 'refresh_token',
            refresh_token: presented.refresh,
          }),
        );
        if (status === 200) {
          record.rotated.push({ token: presented.refresh, at: Date.now() });
          grant = {
            access: body.access_token!,
            refresh: body.refresh_token!,
            issuedAt: Date.now(),
            retried: false,
          };
        } else if (status === 503 || status === 0) {
          grant = { ...presented, retried: true }; // asked again next time, as a client would
        } else {
          if (presented.retried) record.lostAfterUnavailable.push({ at: Date.now() });
          else record.lostAcknowledged.push({ at: Date.now(), issuedAt: presented.issuedAt });
          grant = undefined;
        }
      } else {
        await call('bearer', () => bearer(server(1), grant!.access));
      }

      // A token revoked more than the lag ago, at another process than the one that revoked it.
      const due = record.revoked.filter(({ at }) => Date.now() - at > options.maxLagMs);
      const old = due[Math.floor(Math.random() * due.length)];
      if (old) {
        const checkedAt = Date.now();
        const { status } = await call('revoked-check', () => bearer(server(2), old.token));
        if (status === 204 && checkedAt - old.at > options.maxLagMs)
          record.acceptedAfterLag.push({ at: checkedAt, revokedAt: old.at });
      }
      await new Promise((resolve) => setTimeout(resolve, options.pauseMs ?? 20));
    }
  };

  const workers = Array.from({ length: options.workers ?? 4 }, (_, index) => worker(index));
  return {
    record,
    async mintCodes(count) {
      const minted = await Promise.all(Array.from({ length: count }, mintCode));
      codes.push(...minted);
    },
    async stop() {
      running = false;
      await Promise.all(workers);
    },
  };
}

/**
 * Presents every refresh token rotated and every code redeemed during the load once more, at
 * `base`: each must be refused. Resolves to how many were accepted (redeemed twice).
 */
export async function redeemedTwice(record: LoadRecord, base: string) {
  let refreshTokens = 0;
  let codes = 0;
  for (const { token } of record.rotated) {
    const response = await post(base, '/oauth2/v1/token', {
      grant_type: 'refresh_token',
      refresh_token: token,
    });
    if (response.status === 200) refreshTokens++;
    await response.arrayBuffer();
  }
  for (const { code } of record.redeemed) {
    const response = await post(base, '/oauth2/v1/token', {
      grant_type: 'authorization_code',
      code,
      redirect_uri: REDIRECT_URI,
      code_verifier: PKCE_VERIFIER,
    });
    if (response.status === 200) codes++;
    await response.arrayBuffer();
  }
  return { refreshTokens, codes };
}

/** One row of a fault table: what the answers between `from` and `to` (ms) were. */
export interface FaultRow {
  readonly fault: string;
  readonly answered: number;
  /** Requests that got no HTTP answer at all. */
  readonly unanswered: number;
  readonly serverErrorsOtherThan503: number;
  readonly unavailableWithRetryAfter: number;
  readonly unavailableWithoutRetryAfter: number;
  /** From the fault to the first answer after which none was a 503 (0 when none was). */
  readonly secondsToRecover: number;
  readonly acceptedAfterLag: number;
  readonly lostAcknowledged: number;
  readonly lostAfterUnavailable: number;
}

/** The row of the answers between `from` (the fault) and `to`. */
export function faultRow(fault: string, record: LoadRecord, from: number, to: number): FaultRow {
  const inWindow = <T extends { at: number }>(items: readonly T[]) =>
    items.filter(({ at }) => at >= from && at < to);
  const answers = inWindow(record.answers);
  const unavailable = answers.filter(({ status }) => status === 503);
  const lastFailure = Math.max(
    from,
    ...answers.filter(({ status }) => status === 503 || status === 0).map(({ at }) => at),
  );
  return {
    fault,
    answered: answers.filter(({ status }) => status !== 0).length,
    unanswered: answers.filter(({ status }) => status === 0).length,
    serverErrorsOtherThan503: answers.filter(({ status }) => status >= 500 && status !== 503).length,
    unavailableWithRetryAfter: unavailable.filter(({ retryAfter }) => retryAfter !== null).length,
    unavailableWithoutRetryAfter: unavailable.filter(({ retryAfter }) => retryAfter === null).length,
    secondsToRecover: (lastFailure - from) / 1000,
    acceptedAfterLag: inWindow(record.acceptedAfterLag).length,
    lostAcknowledged: inWindow(record.lostAcknowledged).length,
    lostAfterUnavailable: inWindow(record.lostAfterUnavailable).length,
  };
}

/** The rows as a Markdown table. */
export function faultTable(rows: readonly FaultRow[]): string {
  return [
    '| fault | answered | no answer | 5xx other than 503 | 503 with Retry-After | 503 without | seconds to recover | revoked accepted after the lag | acknowledged tokens lost | grants lost to a retry after 503 |',
    '| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |',
    ...rows.map(
      (row) =>
        `| ${row.fault} | ${row.answered} | ${row.unanswered} | ${row.serverErrorsOtherThan503} | ${row.unavailableWithRetryAfter} | ${row.unavailableWithoutRetryAfter} | ${row.secondsToRecover.toFixed(1)} | ${row.acceptedAfterLag} | ${row.lostAcknowledged} | ${row.lostAfterUnavailable} |`,
    ),
  ].join('\n');
}

/** Resolves once no request of the load failed (503 or no answer) for 1.5 s since `since`; at most 30 s. */
export async function untilRecovered(record: LoadRecord, since: number): Promise<void> {
  await waitFor(
    'the load to go 1.5 s without a failed request',
    async () => {
      const failures = record.answers.filter(
        ({ at, status }) => at >= since && (status === 503 || status === 0),
      );
      const last = failures.at(-1)?.at ?? since;
      return Date.now() - last >= 1500 ? true : undefined;
    },
    30_000,
  );
}

/**
 * What every row must show: every request answered, no 5xx but 503, each 503 with Retry-After;
 * and, when the setup loses no acknowledged write (`lossless`), no revoked token accepted after
 * the lag and no acknowledged token lost.
 */
export function expectRows(rows: readonly FaultRow[], { lossless }: { lossless: boolean }): void {
  for (const row of rows) {
    const must = {
      unanswered: row.unanswered,
      serverErrorsOtherThan503: row.serverErrorsOtherThan503,
      unavailableWithoutRetryAfter: row.unavailableWithoutRetryAfter,
      ...(lossless ? { acceptedAfterLag: row.acceptedAfterLag, lostAcknowledged: row.lostAcknowledged } : {}),
    };
    expect({ fault: row.fault, ...must }).toEqual({
      fault: row.fault,
      ...Object.fromEntries(Object.keys(must).map((name) => [name, 0])),
    });
  }
}

/** Gatehouse server processes for a load, and the test's own handle on their keys. */
export interface LoadServers {
  readonly servers: readonly ServerProcess[];
  readonly storage: RedisStorage;
  /** Stops the servers, deletes the keys and closes the handle. */
  stop(): Promise<void>;
}

/**
 * Two server processes (the scale-out server: the demo instance, one shared ES256 key, pushed
 * revocations with `maxLagMs` 1000, `storageTimeoutMs` 1000) on a fresh key prefix of the Redis
 * engine that `env` names to the demo (`REDIS_CLUSTER_NODES`, `REDIS_SENTINELS`, …), and a handle
 * made with `options` (the same servers, in the engine's terms) on the same prefix.
 */
export async function startLoadServers(
  env: Record<string, string>,
  options: Omit<RedisStorageOptions, 'prefix'>,
): Promise<LoadServers> {
  const namespace = `gatehouse_load_${crypto.randomUUID().replaceAll('-', '').slice(0, 12)}`;
  const serverEnv = {
    GATEHOUSE_STORE: 'redis',
    GATEHOUSE_STORE_NAMESPACE: namespace,
    GATEHOUSE_JWK: JSON.stringify(await generateKeys('ES256')),
    DEMO_PORT: '3999',
    GATEHOUSE_PUSHED_REVOCATIONS: '1',
    ...env,
  };
  const servers = await Promise.all([startServer(serverEnv), startServer(serverEnv)]);
  const storage = redisStorage({ ...options, prefix: namespace });
  await storage.ready();
  return {
    servers,
    storage,
    async stop() {
      await Promise.all(servers.map((server) => server.stop()));
      await dropPrefix(storage, namespace).catch(() => {});
      await storage.close();
    },
  };
}
