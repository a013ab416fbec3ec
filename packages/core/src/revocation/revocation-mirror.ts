import type { Logger } from '../events.js';
import { ExpiringMap } from '../storage/memory/expiring-map.js';
import type {
  GrantStore,
  RevocationEvent,
  RevocationListener,
  RevocationSubscription,
} from '../storage/types.js';
import type { EpochMs, Milliseconds } from '../time.js';

/** Options of the revocation mirror (`pushedRevocations`). */
export interface PushedRevocationsOptions {
  /**
   * The guarantee's bound, in ms: a revocation committed by any process is honoured by this one
   * at most this long afterwards. The mirror answers only while a probe sent within this time
   * came back through the engine's channel; otherwise the bearer check asks the engine. Default
   * 1000; 50 to 60,000.
   */
  readonly maxLagMs?: Milliseconds;
  /**
   * Most revocations held (grants, tokens and user marks together; each expires with what it
   * names). Beyond it the mirror stops answering and every check asks the engine until the channel
   * reconnects. Default 1,000,000 (roughly 100–200 MB at worst).
   */
  readonly maxEntries?: number;
}

type State = 'idle' | 'connecting' | 'catching-up' | 'live' | 'overflowed';

interface Revocation {
  readonly expiresAt: number;
}
interface SubjectMark extends Revocation {
  readonly at: number;
}

/** Probes outstanding at once: older ones are forgotten (a later echo proves more anyway). */
const MAX_PROBES = 64;

/**
 * A process's mirror of one instance's revocations, fed by the engine's channel
 * ({@link GrantStore.watchRevocations}), consulted by the bearer check instead of the engine.
 *
 * Why it may answer: the engine publishes each revocation in the step that commits it, in commit
 * order, and a probe published later arrives after it. So when a probe sent at `t` has come back,
 * every revocation committed before `t` is here. The mirror answers only while the latest echoed
 * probe was sent at most `maxLagMs` ago, and only once the snapshot taken after (re)connecting is
 * merged (the subscription came first, so nothing falls between the two). Otherwise — never
 * connected, disconnected, catching up, lagging, full — {@link check} says "ask the engine".
 *
 * No timers: a probe goes out from {@link check} when the last one is a quarter of the lag old, so
 * an idle process sends nothing (its first request after a pause asks the engine, and the mirror
 * answers again once that request's probe is back).
 */
export class RevocationMirror {
  readonly #watch: (listener: RevocationListener) => RevocationSubscription;
  readonly #maxLagMs: number;
  readonly #maxEntries: number;
  readonly #clock: () => number;
  readonly #now: () => EpochMs;
  readonly #logger: Logger;
  readonly #id: string;
  #state: State = 'idle';
  #subscription: RevocationSubscription | undefined;
  /** Bumped on every (re)connection, so a snapshot of an earlier connection is dropped. */
  #generation = 0;
  #grants = new ExpiringMap<Revocation>();
  #tokens = new ExpiringMap<Revocation>();
  #subjects = new ExpiringMap<SubjectMark>();
  #probeSeq = 0;
  #probeSentAt = Number.NEGATIVE_INFINITY;
  #echoSentAt = Number.NEGATIVE_INFINITY;
  readonly #probes = new Map<string, number>();
  /** When a snapshot failed on a channel still connected (monotonic ms): retried after the lag. */
  #snapshotFailedAt: number | undefined;
  #lastLagMs: number | undefined;
  /** Told the round trip of each probe of this process, in ms: the channel's lag (telemetry). */
  onLag: ((ms: number) => void) | undefined;

  constructor(
    watch: (listener: RevocationListener) => RevocationSubscription,
    options: PushedRevocationsOptions,
    logger: Logger,
    /** The instance clock: revocations expire by it, as in the engines. */
    now: () => EpochMs,
    /** Monotonic time in ms: the lag is real time, not the instance clock (which tests move). */
    clock: () => number = () => performance.now(),
  ) {
    this.#now = now;
    this.#watch = watch;
    this.#maxLagMs = options.maxLagMs ?? 1000;
    this.#maxEntries = options.maxEntries ?? 1_000_000;
    this.#logger = logger;
    this.#clock = clock;
    const bytes = crypto.getRandomValues(new Uint8Array(9));
    this.#id = Array.from(bytes, (b) => b.toString(16).padStart(2, '0')).join('');
  }

  /** The round trip of the latest probe echoed in this process, in ms (`undefined` before the first). */
  get lagMs(): number | undefined {
    return this.#lastLagMs;
  }

  /** Whether the mirror answers now (connected, caught up, and a recent probe came back). */
  get live(): boolean {
    return this.#state === 'live' && this.#clock() - this.#echoSentAt <= this.#maxLagMs;
  }

  /**
   * The answer of `isRevoked` from the mirror, or `undefined` when it cannot be trusted now (ask
   * the engine). Subscribes on the first call and keeps probes flowing while checks come.
   */
  check(
    jti: string,
    grantId: string | undefined,
    now: EpochMs,
    userId: string | undefined,
    issuedAt: EpochMs | undefined,
  ): boolean | undefined {
    if (this.#state === 'idle') this.#subscribe();
    const t = this.#clock();
    if (this.#snapshotFailedAt !== undefined && t - this.#snapshotFailedAt > this.#maxLagMs)
      this.#connected();
    if (t - this.#probeSentAt >= this.#maxLagMs / 4) this.#probe(t);
    if (this.#state !== 'live' || t - this.#echoSentAt > this.#maxLagMs) return undefined;
    if (this.#tokens.get(jti, now) !== undefined) return true;
    if (grantId !== undefined && this.#grants.get(grantId, now) !== undefined) return true;
    if (userId === undefined || issuedAt === undefined) return false;
    const mark = this.#subjects.get(userId, now);
    return mark !== undefined && issuedAt <= mark.at;
  }

  /**
   * Records a revocation this process just committed, so that it holds here at once (the channel
   * brings it back a moment later; applying it twice changes nothing).
   */
  record(event: RevocationEvent): void {
    if (this.#state === 'live' || this.#state === 'catching-up') this.#apply(event);
  }

  /** Stops listening; the mirror then never answers. */
  close(): void {
    this.#subscription?.unsubscribe();
    this.#subscription = undefined;
    this.#reset('overflowed');
  }

  #subscribe(): void {
    this.#state = 'connecting';
    this.#subscription = this.#watch({
      connected: () => this.#connected(),
      revoked: (event) => {
        if (this.#state === 'live' || this.#state === 'catching-up') this.#apply(event);
      },
      echoed: (probeId) => {
        const sentAt = this.#probes.get(probeId);
        if (sentAt === undefined) return; // another process's probe, or one forgotten
        this.#probes.delete(probeId);
        if (sentAt > this.#echoSentAt) this.#echoSentAt = sentAt;
        this.#lastLagMs = this.#clock() - sentAt;
        this.onLag?.(this.#lastLagMs);
      },
      lost: () => {
        if (this.#state !== 'overflowed') this.#reset('connecting');
      },
    });
  }

  #connected(): void {
    if (this.#state === 'overflowed' && this.#subscription === undefined) return; // closed
    this.#reset('catching-up');
    const generation = this.#generation;
    // Events from now on are applied as they come; the snapshot adds everything committed before.
    this.#subscription!.snapshot(this.#now()).then(
      (events) => {
        if (generation !== this.#generation || this.#state !== 'catching-up') return;
        for (const event of events) this.#apply(event);
        if (this.#state === 'catching-up') this.#state = 'live';
      },
      (error) => {
        if (generation !== this.#generation) return;
        // Without the snapshot the mirror must not answer; a later check tries again.
        this.#state = 'connecting';
        this.#snapshotFailedAt = this.#clock();
        this.#logger.warn('gatehouse: revocation snapshot failed; checking the engine per request', error);
      },
    );
    this.#probe(this.#clock());
  }

  /** Forgets every revocation and probe: what the channel missed is unknown until a snapshot. */
  #reset(state: State): void {
    this.#generation++;
    this.#snapshotFailedAt = undefined;
    this.#state = state;
    this.#grants = new ExpiringMap();
    this.#tokens = new ExpiringMap();
    this.#subjects = new ExpiringMap();
    this.#probes.clear();
    this.#echoSentAt = Number.NEGATIVE_INFINITY;
  }

  #probe(t: number): void {
    if (this.#state !== 'live' && this.#state !== 'catching-up') return;
    this.#probeSentAt = t;
    const probeId = `${this.#id}:${++this.#probeSeq}`;
    this.#probes.set(probeId, t);
    if (this.#probes.size > MAX_PROBES) this.#probes.delete(this.#probes.keys().next().value!);
    // A failed probe is only a missing echo: the mirror then stops answering when the lag runs out.
    this.#subscription!.probe(probeId).catch(() => {});
  }

  #apply(event: RevocationEvent): void {
    const now = this.#now();
    if (event.expiresAt <= now) return;
    if (event.kind === 'subject') {
      const existing = this.#subjects.get(event.id, now);
      this.#subjects.set(
        event.id,
        {
          at: Math.max(event.at, existing?.at ?? event.at),
          expiresAt: Math.max(event.expiresAt, existing?.expiresAt ?? 0),
        },
        now,
      );
    } else {
      const map = event.kind === 'grant' ? this.#grants : this.#tokens;
      const existing = map.get(event.id, now);
      map.set(event.id, { expiresAt: Math.max(event.expiresAt, existing?.expiresAt ?? 0) }, now);
    }
    if (this.#grants.size + this.#tokens.size + this.#subjects.size > this.#maxEntries) {
      for (const map of [this.#grants, this.#tokens, this.#subjects]) map.sweepAll(now);
      if (this.#grants.size + this.#tokens.size + this.#subjects.size > this.#maxEntries) {
        this.#logger.warn(
          `gatehouse: more than ${this.#maxEntries} revocations in force; checking the engine per request until the channel reconnects`,
        );
        this.#reset('overflowed');
      }
    }
  }
}

/**
 * The grant store with the mirror in the loop: this process's own revocations enter the mirror
 * as soon as the engine committed them.
 */
export function mirroredGrantStore(grants: GrantStore, mirror: RevocationMirror): GrantStore {
  return {
    ...grants,
    async revokeGrant(grantId, expiresAt) {
      await grants.revokeGrant(grantId, expiresAt);
      mirror.record({ kind: 'grant', id: grantId, expiresAt });
    },
    async revokeAccessToken(jti, expiresAt) {
      await grants.revokeAccessToken(jti, expiresAt);
      mirror.record({ kind: 'token', id: jti, expiresAt });
    },
    ...(grants.revokeSubject && {
      async revokeSubject(userId: string, at: EpochMs, expiresAt: EpochMs) {
        await grants.revokeSubject!(userId, at, expiresAt);
        mirror.record({ kind: 'subject', id: userId, at, expiresAt });
      },
    }),
  };
}
