import type { GatehouseEvent } from '../../events.js';
import { guardedFetch, HOST_CONFIGURED_URL_POLICY, OutboundFetchError } from '../../http/guarded-fetch.js';
import type { AddressPolicy } from '../../http/ip-address.js';
import type { SessionObserverContext } from '../../session/lifecycle.js';
import { isSelfRegistered } from '../../storage/self-registered.js';
import type { ClientRecord } from '../../storage/types.js';
import { signLogoutToken } from './logout-token.js';
import type { BackchannelLogoutSettings } from './settings.js';

/*
 * The logout requests of ended sessions (OpenID Connect Back-Channel Logout 1.0 §2.5): a POST of
 * `logout_token` to the client's `backchannelLogoutUri`, through the guarded outbound fetch (no
 * redirects, a deadline per attempt, https or a loopback host; a self-registered client's URI must
 * reach a public address, the host's clients may name any, the host chose them). They run in this
 * process after the user's answer, at most `maxConcurrentDeliveries` at once; a failure that may
 * pass (no connection, a timeout, a 5xx or 429) is retried after `retryDelayMs`, doubled at each
 * retry, up to `maxAttempts`; every outcome is an event, so an audit record. What waits is bounded
 * per client (`maxQueuedPerClient`: a client whose endpoint is slow or down fills its own share,
 * never the others') and for the instance (`maxQueued`).
 */

/** One logout token to deliver: to a client, for a session of a user. */
interface Job {
  readonly ctx: SessionObserverContext;
  readonly client: ClientRecord;
  readonly uri: URL;
  readonly userId: string;
  readonly sid: string;
  attempt: number;
  readonly done: () => void;
}

/** An answer's body is not used: a small cap bounds what reading it costs. */
const MAX_ANSWER_BYTES = 4096;

/** The statuses a relying party answers a logout it performed with (§2.8; 204 from some frameworks). */
const DELIVERED = [200, 204] as const;

/** How one attempt went. */
type Outcome =
  | { readonly kind: 'delivered' }
  | {
      readonly kind: 'retry' | 'final';
      readonly reason: Extract<GatehouseEvent, { type: 'backchannel_logout.abandoned' }>['reason'];
      readonly status?: number;
    };

/** The instance's logout request queue. */
export class LogoutDeliveries {
  readonly #settings: BackchannelLogoutSettings;
  readonly #ready: Job[] = [];
  readonly #perClient = new Map<string, number>();
  #queued = 0;
  #inFlight = 0;

  constructor(settings: BackchannelLogoutSettings) {
    this.#settings = settings;
  }

  /** Logout requests waiting (ready or in backoff) or in flight. */
  get queued(): number {
    return this.#queued;
  }

  /**
   * Queues a logout token for `client` (which has a `backchannelLogoutUri`) about session `sid` of
   * `userId`. Resolves when it was delivered or given up; never rejects.
   */
  deliver(ctx: SessionObserverContext, client: ClientRecord, userId: string, sid: string): Promise<void> {
    const uri = client.backchannelLogoutUri;
    if (uri === undefined) return Promise.resolve();
    const held = this.#perClient.get(client.id) ?? 0;
    if (held >= this.#settings.maxQueuedPerClient || this.#queued >= this.#settings.maxQueued) {
      ctx.emit(abandoned(client.id, userId, sid, 0, { kind: 'final', reason: 'queue_full' }));
      return Promise.resolve();
    }
    let url: URL;
    try {
      url = new URL(uri);
    } catch {
      ctx.emit(abandoned(client.id, userId, sid, 0, { kind: 'final', reason: 'refused_url' }));
      return Promise.resolve();
    }
    this.#perClient.set(client.id, held + 1);
    this.#queued++;
    return new Promise<void>((done) => {
      this.#ready.push({ ctx, client, uri: url, userId, sid, attempt: 0, done });
      this.#pump();
    });
  }

  /** Starts waiting jobs while slots are free. */
  #pump(): void {
    while (this.#inFlight < this.#settings.maxConcurrentDeliveries && this.#ready.length > 0) {
      const job = this.#ready.shift()!;
      this.#inFlight++;
      void this.#attempt(job).then((retryInMs) => {
        this.#inFlight--;
        if (retryInMs === undefined) this.#finish(job);
        else this.#later(job, retryInMs);
        this.#pump();
      });
    }
  }

  /** One attempt; resolves to the wait before the next one, or `undefined` when the job is over. */
  async #attempt(job: Job): Promise<number | undefined> {
    job.attempt++;
    const { ctx, client, userId, sid } = job;
    let outcome: Outcome;
    try {
      outcome = await this.#post(job);
    } catch (error) {
      ctx.logger.error('gatehouse: a back-channel logout request failed unexpectedly', error);
      outcome = { kind: 'retry', reason: 'unreachable' };
    }
    if (outcome.kind === 'delivered') {
      ctx.emit({
        type: 'backchannel_logout.delivered',
        clientId: client.id,
        userId,
        sessionId: sid,
        attempt: job.attempt,
      });
      return undefined;
    }
    if (outcome.kind === 'final' || job.attempt >= this.#settings.maxAttempts) {
      ctx.emit(abandoned(client.id, userId, sid, job.attempt, outcome));
      return undefined;
    }
    const retryInMs = this.#settings.retryDelayMs * 2 ** (job.attempt - 1);
    const reason =
      outcome.reason === 'timeout' || outcome.reason === 'status' ? outcome.reason : 'unreachable';
    ctx.emit({
      type: 'backchannel_logout.failed',
      clientId: client.id,
      userId,
      sessionId: sid,
      attempt: job.attempt,
      reason,
      ...(outcome.status === undefined ? {} : { status: outcome.status }),
      retryInMs,
    });
    return retryInMs;
  }

  /** Signs a fresh logout token (its `exp` counts from this attempt) and POSTs it (§2.5). */
  async #post(job: Job): Promise<Outcome> {
    const token = await signLogoutToken(job.ctx, {
      client: job.client,
      userId: job.userId,
      sid: job.sid,
      ttl: this.#settings.logoutTokenTtl,
    });
    if (token === undefined) return { kind: 'final', reason: 'unsigned' };
    try {
      await guardedFetch(job.uri, {
        policy: policyOf(job.client, this.#settings),
        transport: this.#settings.fetch,
        maxBytes: MAX_ANSWER_BYTES,
        timeoutMs: this.#settings.timeoutMs,
        accept: 'application/json, */*;q=0.1',
        post: { form: new URLSearchParams({ logout_token: token }) },
        statuses: DELIVERED,
      });
      return { kind: 'delivered' };
    } catch (error) {
      if (!(error instanceof OutboundFetchError)) throw error;
      return outcomeOf(error);
    }
  }

  /** Puts `job` back in line after `ms` (it keeps its place in the bounds meanwhile). */
  #later(job: Job, ms: number): void {
    const timer = setTimeout(() => {
      this.#ready.push(job);
      this.#pump();
    }, ms);
    // A retry waiting does not keep a process alive that has nothing else to do (`waitUntil` does).
    (timer as { unref?: () => void }).unref?.();
  }

  #finish(job: Job): void {
    this.#queued--;
    const held = (this.#perClient.get(job.client.id) ?? 1) - 1;
    if (held === 0) this.#perClient.delete(job.client.id);
    else this.#perClient.set(job.client.id, held);
    job.done();
  }
}

/**
 * Where a client's logout requests may go: anyone could have chosen a self-registered client's
 * URI, so only public addresses (loopback with the development setting); the host chose its own
 * clients' (an internal relying party is fine).
 */
function policyOf(client: ClientRecord, settings: BackchannelLogoutSettings): AddressPolicy {
  return isSelfRegistered(client) ? { allowLoopback: settings.allowLoopback } : HOST_CONFIGURED_URL_POLICY;
}

/** What a refused or failed request means for its logout token. */
function outcomeOf(error: OutboundFetchError): Outcome {
  switch (error.code) {
    case 'ERR_FETCH_TIMEOUT':
      return { kind: 'retry', reason: 'timeout' };
    case 'ERR_FETCH_FAILED':
      return { kind: 'retry', reason: 'unreachable' };
    case 'ERR_FETCH_REDIRECT':
      return { kind: 'final', reason: 'redirect' };
    case 'ERR_FETCH_REFUSED_URL':
      return { kind: 'final', reason: 'refused_url' };
    case 'ERR_FETCH_STATUS': {
      const status = error.status ?? 0;
      // A server error or a rate limit may pass; a 400 is the relying party refusing the token
      // (§2.8), and a 501 its saying it cannot log out (§2.8): retrying changes neither.
      const transient = (status >= 500 && status !== 501) || status === 429;
      return { kind: transient ? 'retry' : 'final', reason: 'status', status };
    }
    default:
      // ERR_FETCH_TOO_LARGE: the answer was a success whose body nobody reads.
      return { kind: 'delivered' };
  }
}

function abandoned(
  clientId: string,
  userId: string,
  sessionId: string,
  attempt: number,
  outcome: Exclude<Outcome, { kind: 'delivered' }>,
): GatehouseEvent {
  return {
    type: 'backchannel_logout.abandoned',
    clientId,
    userId,
    sessionId,
    attempt,
    reason: outcome.reason,
    ...(outcome.status === undefined ? {} : { status: outcome.status }),
  };
}
