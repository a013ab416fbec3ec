import type { Context } from '../context.js';
import type { ClientRecord } from '../storage/types.js';

/*
 * What happens beyond the session store when a browser session takes part in a grant or ends. The
 * code paths that end sessions (the logout page, RP-initiated logout, `endSession`,
 * `revokeSession`, `revokeUser`, and anything built on them, such as an admin API) all report
 * here, and features observe it (OpenID Connect Back-Channel Logout 1.0 tells each relying party
 * of the session). The instance's lifecycle holds its context once the keys are in, so a trigger
 * needs no context of its own and never waits for what the observers do.
 */

/** A session that ended: its user and its public id (the OIDC `sid`). */
export interface EndedSession {
  readonly userId: string;
  readonly sid: string;
}

/** A client that received tokens of a grant started in a session. */
export interface SessionParticipant {
  readonly userId: string;
  /** The session's public id (`sid`), as in the client's ID token. */
  readonly sid: string;
  readonly client: ClientRecord;
}

/**
 * What a session observer reads of the instance: enough to look up and record participants, sign a
 * logout token and report what happened.
 */
export type SessionObserverContext = Pick<
  Context,
  'issuer' | 'clock' | 'keys' | 'randomBytes' | 'storage' | 'session' | 'clients' | 'logger' | 'emit'
>;

/** What a feature does when sessions take part in grants and end (`FeatureParts.sessions`). */
export interface SessionObserver {
  /**
   * A client received tokens of a grant started in session `sid` (awaited by the token endpoint
   * before it answers, so that the session's end reaches the client however soon it comes). A
   * rejection is logged: the code is spent by then, so the tokens are answered anyway.
   */
  readonly joined?: (ctx: SessionObserverContext, participant: SessionParticipant) => Promise<void>;
  /**
   * Sessions ended (they are deleted or revoked already). Returns at once: slow work (telling
   * relying parties) goes on after the user's answer was sent.
   */
  readonly ended?: (ctx: SessionObserverContext, sessions: readonly EndedSession[]) => void;
}

/**
 * The instance's session lifecycle: the observers of its features, attached when they are set up
 * (`assembleFeatures`), and the instance's context, given once its keys are imported
 * (`createGatehouse`).
 */
export class SessionLifecycle {
  readonly #joined: NonNullable<SessionObserver['joined']>[] = [];
  readonly #ended: NonNullable<SessionObserver['ended']>[] = [];
  #context: Promise<Context> | undefined;

  /** Adds a feature's observer. */
  observe(observer: SessionObserver): void {
    if (observer.joined) this.#joined.push(observer.joined);
    if (observer.ended) this.#ended.push(observer.ended);
  }

  /** Hands over the instance's context, once (it resolves when the keys are in). */
  start(context: Promise<Context>): void {
    this.#context = context;
  }

  /**
   * Whether some feature observes session ends: the session-ending paths that must look sessions
   * up first to report them (`revokeUser` lists the user's) skip that when nothing listens.
   */
  get observesEnds(): boolean {
    return this.#ended.length > 0;
  }

  /** Whether some feature observes participation: the token endpoint skips the call otherwise. */
  get observesParticipants(): boolean {
    return this.#joined.length > 0;
  }

  /**
   * Reports a client's participation in a session; resolves when every observer has recorded it.
   * Never rejects: an observer's failure (a store down) is logged.
   */
  async joined(ctx: SessionObserverContext, participant: SessionParticipant): Promise<void> {
    for (const observer of this.#joined) {
      try {
        await observer(ctx, participant);
      } catch (error) {
        ctx.logger.error(
          'gatehouse: a client could not be recorded as taking part in a session; it will not hear of its end',
          error,
        );
      }
    }
  }

  /**
   * Reports ended sessions. Never throws and never waits: the observers run once the instance's
   * context is there (at once, on a started instance), and a failing one is logged.
   */
  ended(sessions: readonly EndedSession[]): void {
    if (this.#ended.length === 0 || sessions.length === 0) return;
    const context = this.#context;
    if (context === undefined) return;
    context.then(
      (ctx) => {
        for (const observer of this.#ended) {
          try {
            observer(ctx, sessions);
          } catch (error) {
            ctx.logger.error('gatehouse: a session-end observer failed', error);
          }
        }
      },
      // The keys could not be imported: the instance answers nothing, and was logged already.
      () => {},
    );
  }
}
