/**
 * A steady mixed load on the `/app` instance of `engines/app-server.ts` (behind the balancer of
 * `engines/app-processes.ts`), and the ledger of what it saw: what the fault campaign and the
 * several-processes tests measure. Each virtual user signs in (the browser's code flow, or the
 * Auth API's password exchange), checks its bearer token, refreshes, now and then races two
 * refreshes of one token at two processes, revokes an access token or a whole grant, and parks a
 * grant untouched until the end. What every answer means is judged here:
 *
 * - **answered**: any HTTP answer; **unanswered**: no answer within {@link REQUEST_TIMEOUT_MS}, or
 *   the connection failed;
 * - **5xx other than 503**: never right; **503** counts with and without `Retry-After`;
 * - **redeemed twice**: one refresh token answered with new tokens twice;
 * - **grants lost**: a refresh token the client holds and got with a 200, with no unanswered
 *   request on its grant since, refused at its next use (or at the end, for parked grants);
 * - **grants ended by a retried refresh**: a refresh answered 503 (or not at all) may still have
 *   rotated the token when the engine got to it; the client's retry with the token it holds is
 *   then a reuse, and reuse ends the grant (RFC 9700 §4.14.2): the user signs in again;
 * - **revoked accepted after the lag**: a token whose revocation was acknowledged passing a bearer
 *   check `lagMs` or more after the acknowledgement, checked three times after the lag and once
 *   more at the end (or a revoked grant's refresh token refreshing);
 * - **valid refused**: a 401 at the bearer check for a token of a clean grant nobody revoked.
 */
import { createHash } from 'node:crypto';
import { signIn } from '../../examples/conformance/src/code-flow.js';
import { CookieClient } from '../../examples/conformance/src/harness.js';

/** How long a request may take before it counts as unanswered. */
export const REQUEST_TIMEOUT_MS = 10_000;
const CLIENT = `Basic ${Buffer.from('app-client:app-secret').toString('base64')}`;
const USER = `Basic ${Buffer.from('load:load-password').toString('base64')}`;
const FORM = 'application/x-www-form-urlencoded';

/** Where the load goes. */
export interface LoadTarget {
  /** The balancer's origin: the issuer's origin, `{origin}/app`. */
  readonly origin: string;
  /** The live processes' own origins: a race goes to two of them, revocation checks to each. */
  processes(): readonly string[];
  /** The revocation lag the processes guarantee (`APP_MAX_LAG_MS`). */
  readonly lagMs: number;
}

/** Options of {@link startLoad}. */
export interface LoadOptions {
  /** Virtual users. Default 8. */
  readonly users?: number;
  /** Pause between a user's steps, ms. Default 25. */
  readonly thinkMs?: number;
  /** Grants parked untouched until the end, to check they survived. Default 32. */
  readonly parkedGrants?: number;
}

/** The figures of a run. */
export interface LoadFigures {
  readonly answered: number;
  readonly unanswered: number;
  /** `status op` of every 5xx but 503. */
  readonly serverErrors: readonly string[];
  readonly unavailableWithRetryAfter: number;
  readonly unavailableWithoutRetryAfter: number;
  readonly signIns: number;
  readonly refreshes: number;
  readonly bearerChecks: number;
  readonly revocations: number;
  readonly redeemedTwice: number;
  /** Acknowledged grants refused at their next use (the token hash prefix and when). */
  readonly grantsLost: readonly string[];
  readonly grantsEndedByRetriedRefresh: number;
  /** Revoked tokens accepted `lagMs` or more after the revocation was acknowledged. */
  readonly revokedAccepted: readonly string[];
  readonly revokedChecks: number;
  readonly validRefused: number;
  /** Grants verified at the end (parked and current). */
  readonly grantsVerified: number;
}

/** A running load. */
export interface Load {
  /**
   * Milliseconds from `since` (epoch ms) to the first 2xx answer to a sign-in or refresh sent at
   * or after it; `undefined` if none yet.
   */
  recoveredAfter(since: number): number | undefined;
  /** Stops the users, lets the revocation checks run out, verifies every grant held, and sums up. */
  stop(): Promise<LoadFigures>;
}

interface Grant {
  refresh: string;
  access: string;
  /** An unanswered request (503, timeout) may have acted on the grant since its last 200. */
  ambiguous: boolean;
}

interface Revoked {
  readonly token: string;
  readonly acknowledgedAt: number;
  /** The grant's refresh token, when the whole grant was revoked. */
  readonly refresh?: string;
  checks: number;
}

type Answer = { status: number; retryAfter: boolean; body: Record<string, unknown> } | undefined;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const digest = (token: string) => createHash('sha256').update(token).digest('hex').slice(0, 12);

/** Starts the load; it runs until {@link Load.stop}. */
export function startLoad(target: LoadTarget, options: LoadOptions = {}): Load {
  const users = options.users ?? 8;
  const thinkMs = options.thinkMs ?? 25;
  const maxParked = options.parkedGrants ?? 32;
  let running = true;

  const counts = {
    answered: 0,
    unanswered: 0,
    unavailableWithRetryAfter: 0,
    unavailableWithoutRetryAfter: 0,
    signIns: 0,
    refreshes: 0,
    bearerChecks: 0,
    revocations: 0,
    redeemedTwice: 0,
    grantsEndedByRetriedRefresh: 0,
    revokedChecks: 0,
    validRefused: 0,
    grantsVerified: 0,
  };
  const serverErrors: string[] = [];
  const grantsLost: string[] = [];
  const revokedAccepted: string[] = [];
  /** Times a request that succeeded was sent, for sign-ins and refreshes. */
  const successes: number[] = [];
  const redemptions = new Map<string, number>();
  const revoked: Revoked[] = [];
  const parked: Grant[] = [];
  const current = new Set<Grant>();

  /** Records an answer (or its absence) of one request. */
  const note = (op: string, response: Response | undefined) => {
    if (!response) {
      counts.unanswered++;
      return;
    }
    counts.answered++;
    if (response.status === 503) {
      if (response.headers.has('retry-after')) counts.unavailableWithRetryAfter++;
      else counts.unavailableWithoutRetryAfter++;
    } else if (response.status >= 500) serverErrors.push(`${response.status} ${op}`);
  };

  /** A fetch that never throws: `undefined` when unanswered. */
  const send = async (op: string, url: string, init: RequestInit): Promise<Answer> => {
    let response: Response | undefined;
    try {
      response = await fetch(url, { ...init, signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS) });
    } catch {
      response = undefined;
    }
    note(op, response);
    if (!response) return undefined;
    const text = await response.text().catch(() => '');
    let body: Record<string, unknown> = {};
    try {
      body = JSON.parse(text);
    } catch {}
    return { status: response.status, retryAfter: response.headers.has('retry-after'), body };
  };

  /** The browser of the code flow, recording each of its requests. */
  class RecordingBrowser extends CookieClient {
    override async fetch(url: string, init: RequestInit = {}): Promise<Response> {
      let response: Response | undefined;
      try {
        response = await super.fetch(url, { ...init, signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS) });
        return response;
      } finally {
        note('browser', response);
      }
    }
  }

  const tokenRequest = (op: string, fields: Record<string, string>, origin = target.origin) =>
    send(op, `${origin}/app/oauth2/v1/token`, {
      method: 'POST',
      headers: { 'Content-Type': FORM, Authorization: CLIENT },
      body: new URLSearchParams(fields),
    });

  /** The code flow through the login page, and the code's exchange (retried once if unanswered). */
  const signInWithCode = async (): Promise<Grant | undefined> => {
    let flow: Awaited<ReturnType<typeof signIn>>;
    try {
      flow = await signIn({
        issuer: `${target.origin}/app`,
        origin: target.origin,
        clientId: 'app-client',
        redirectUri: `${target.origin}/callback`,
        scope: 'openid offline_access',
        username: 'load',
        password: 'load-password',
        browser: new RecordingBrowser(),
      });
    } catch {
      return undefined; // a step answered 503 (counted): start again
    }
    const fields = {
      grant_type: 'authorization_code',
      code: flow.callback.get('code') ?? '',
      redirect_uri: `${target.origin}/callback`,
      code_verifier: flow.verifier,
    };
    const sentAt = Date.now();
    let answer = await tokenRequest('code', fields);
    if (!answer || answer.status === 503) {
      await sleep(500);
      answer = await tokenRequest('code', fields);
      // The first try redeemed the code after all: the retry is a replay, which ends the grant.
      if (answer?.status === 400) counts.grantsEndedByRetriedRefresh++;
    }
    if (answer?.status !== 200) return undefined;
    successes.push(sentAt);
    counts.signIns++;
    return {
      refresh: answer.body.refresh_token as string,
      access: answer.body.access_token as string,
      ambiguous: false,
    };
  };

  /** `GET /app/api/me` with the token; judges a 401 for a token that should pass. */
  const bearerCheck = async (token: string, shouldPass: boolean, origin = target.origin) => {
    counts.bearerChecks++;
    const answer = await send('bearer', `${origin}/app/api/me`, {
      headers: { Authorization: `Bearer ${token}` },
    });
    if (shouldPass && answer?.status === 401) counts.validRefused++;
    return answer;
  };

  /** One refresh of `grant`: updates it, or ends it (returns `undefined`). */
  const refresh = async (grant: Grant): Promise<Grant | undefined> => {
    const sentAt = Date.now();
    const answer = await tokenRequest('refresh', {
      grant_type: 'refresh_token',
      refresh_token: grant.refresh,
    });
    counts.refreshes++;
    if (!answer || answer.status === 503) {
      grant.ambiguous = true;
      await sleep(answer ? 1000 : 200);
      return grant;
    }
    if (answer.status === 200) {
      successes.push(sentAt);
      redeemed(grant.refresh);
      return {
        refresh: answer.body.refresh_token as string,
        access: answer.body.access_token as string,
        ambiguous: false,
      };
    }
    ended(grant, `refresh answered ${answer.status} ${answer.body.error}`);
    return undefined;
  };

  const redeemed = (token: string) => {
    const times = (redemptions.get(token) ?? 0) + 1;
    redemptions.set(token, times);
    if (times === 2) counts.redeemedTwice++;
  };

  /** A grant refused: lost, unless an unanswered request on it may explain it. */
  const ended = (grant: Grant, why: string) => {
    if (grant.ambiguous) counts.grantsEndedByRetriedRefresh++;
    else grantsLost.push(`${digest(grant.refresh)}: ${why}`);
  };

  /** Two refreshes of one token at once, at two processes: exactly one may win. */
  const race = async (grant: Grant): Promise<Grant | undefined> => {
    const processes = target.processes();
    const at = processes.length >= 2 ? processes.slice(0, 2) : [target.origin, target.origin];
    const fields = { grant_type: 'refresh_token', refresh_token: grant.refresh };
    const answers = await Promise.all(at.map((origin) => tokenRequest('race', fields, origin)));
    counts.refreshes += 2;
    const won = answers.filter((answer) => answer?.status === 200);
    const unanswered = answers.some((answer) => !answer || answer.status === 503);
    for (const _ of won) redeemed(grant.refresh);
    if (won.length === 2) return undefined;
    if (won.length === 1) {
      // The loser's reuse revoked the grant (RFC 9700 §4.14.2); an unanswered loser may yet.
      if (!unanswered) return undefined;
      return {
        refresh: won[0]!.body.refresh_token as string,
        access: won[0]!.body.access_token as string,
        ambiguous: true,
      };
    }
    if (unanswered) {
      grant.ambiguous = true;
      return grant;
    }
    ended(grant, 'both refreshes of a race refused');
    return undefined;
  };

  /** Revokes the access token, or the whole grant (by its refresh token). */
  const revoke = async (grant: Grant, whole: boolean): Promise<Grant | undefined> => {
    const answer = await send('revoke', `${target.origin}/app/oauth2/v1/revoke`, {
      method: 'POST',
      headers: { 'Content-Type': FORM, Authorization: CLIENT },
      body: new URLSearchParams({ token: whole ? grant.refresh : grant.access }),
    });
    counts.revocations++;
    if (answer?.status === 200) {
      revoked.push({
        token: grant.access,
        acknowledgedAt: Date.now(),
        refresh: whole ? grant.refresh : undefined,
        checks: 0,
      });
      return whole ? undefined : grant;
    }
    // Unanswered: the revocation may still land; the grant's state is unknown, so leave it.
    return whole || !answer || answer.status === 503 ? undefined : grant;
  };

  /** The Auth API: password → access token, a bearer check, and its revocation by itself. */
  const authApiRound = async () => {
    const sentAt = Date.now();
    const answer = await send('auth-api', `${target.origin}/app/auth/v1/token`, {
      method: 'POST',
      headers: { Authorization: USER },
    });
    if (answer?.status !== 200) return;
    successes.push(sentAt);
    counts.signIns++;
    const token = answer.body.access_token as string;
    await bearerCheck(token, true);
    const revocation = await send('auth-api-revoke', `${target.origin}/app/auth/v1/token/revoke`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${token}` },
    });
    counts.revocations++;
    if (revocation?.status === 200) revoked.push({ token, acknowledgedAt: Date.now(), checks: 0 });
  };

  const user = async (index: number) => {
    let grant: Grant | undefined;
    for (let turn = index; running; turn++) {
      await sleep(thinkMs);
      if (turn % 7 === 3) {
        await authApiRound();
        continue;
      }
      if (!grant) {
        grant = await signInWithCode();
        if (!grant) {
          await sleep(300);
          continue;
        }
        current.add(grant);
      }
      const held = grant;
      const answer = await bearerCheck(held.access, !held.ambiguous);
      if (answer?.status === 503) await sleep(500);
      if (turn % 11 === 5 && !held.ambiguous) grant = await race(held);
      else if (turn % 13 === 7) {
        grant = await revoke(held, turn % 2 === 0);
        // Its access token is revoked now: the next bearer check needs a new one.
        if (grant) grant = await refresh(grant);
      } else if (turn % 17 === 9 && !held.ambiguous && parked.length < maxParked) {
        parked.push(held);
        grant = undefined;
      } else grant = await refresh(held);
      current.delete(held);
      if (grant) current.add(grant);
    }
  };

  /** Checks acknowledged revocations once their lag has passed, at each process in turn. */
  const checker = async () => {
    let turn = 0;
    while (running || revoked.some((entry) => entry.checks < 3)) {
      await sleep(150);
      const due = revoked.filter(
        (entry) => entry.checks < 3 && Date.now() >= entry.acknowledgedAt + target.lagMs + entry.checks * 400,
      );
      for (const entry of due) {
        const processes = target.processes();
        const origin = processes.length > 0 ? processes[turn++ % processes.length]! : target.origin;
        entry.checks++;
        counts.revokedChecks++;
        const checkedAt = Date.now();
        const answer = await bearerCheck(entry.token, false, origin);
        if (answer?.status === 200)
          revokedAccepted.push(
            `${digest(entry.token)} at ${origin}, ${checkedAt - entry.acknowledgedAt} ms after its revocation`,
          );
        if (entry.refresh && entry.checks === 1) {
          const refreshed = await tokenRequest('revoked-refresh', {
            grant_type: 'refresh_token',
            refresh_token: entry.refresh,
          });
          if (refreshed?.status === 200)
            revokedAccepted.push(`${digest(entry.refresh)} refreshed after its grant was revoked`);
        }
      }
    }
  };

  const running$ = [...Array.from({ length: users }, (_, index) => user(index)), checker()];

  return {
    recoveredAfter(since) {
      const first = successes.filter((sentAt) => sentAt >= since).sort((a, b) => a - b)[0];
      return first === undefined ? undefined : first - since;
    },
    async stop() {
      running = false;
      await Promise.all(running$);
      // Every acknowledged revocation still holds at the end (an engine that forgot it would not).
      for (const entry of revoked) {
        counts.revokedChecks++;
        const answer = await bearerCheck(entry.token, false);
        if (answer?.status === 200) revokedAccepted.push(`${digest(entry.token)} accepted again at the end`);
        if (!entry.refresh) continue;
        const refreshed = await tokenRequest('revoked-refresh', {
          grant_type: 'refresh_token',
          refresh_token: entry.refresh,
        });
        if (refreshed?.status === 200)
          revokedAccepted.push(`${digest(entry.refresh)} refreshed at the end after its grant was revoked`);
      }
      // Every grant held with a 200 and nothing unanswered since must still refresh.
      const held = [...parked, ...[...current].filter((grant) => !grant.ambiguous)];
      for (const grant of held) {
        counts.grantsVerified++;
        let answer = await tokenRequest('verify', {
          grant_type: 'refresh_token',
          refresh_token: grant.refresh,
        });
        for (let retry = 0; retry < 5 && (!answer || answer.status === 503); retry++) {
          grant.ambiguous = true;
          await sleep(1000);
          answer = await tokenRequest('verify', {
            grant_type: 'refresh_token',
            refresh_token: grant.refresh,
          });
        }
        if (answer?.status === 200) redeemed(grant.refresh);
        else ended(grant, `at the end: ${answer?.status ?? 'unanswered'} ${answer?.body.error ?? ''}`);
      }
      return { ...counts, serverErrors, grantsLost, revokedAccepted };
    },
  };
}
