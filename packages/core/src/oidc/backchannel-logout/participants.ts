import type { Context } from '../../context.js';
import type { EndedSession, SessionParticipant } from '../../session/lifecycle.js';
import { addSeconds } from '../../time.js';

/*
 * The relying parties of each session (OpenID Connect Back-Channel Logout 1.0 §2.3, "Remembering
 * Logged-In RPs"): a record in the key-value store (`ctx.storage.kv`, every engine, no migration)
 * under `bcl-session:<sid>`, a JSON object with the session's user and the ids of the clients with
 * a `backchannelLogoutUri` that received tokens in it, most recent first, at most
 * `maxClientsPerSession`. It lives as long as a session can (`session.absoluteTimeout` from its last
 * write), and is taken (read and deleted in one step) when the session ends, so that a session
 * ended twice, or by two processes at once, sends its logout tokens once.
 */

/** Compare-and-set attempts of one write under concurrent token requests of one session. */
const UPDATE_ATTEMPTS = 8;

interface Stored {
  /** The session's user. */
  readonly u: string;
  /** Client ids, most recent first. */
  readonly c: readonly string[];
}

const keyOf = (sid: string) => `bcl-session:${sid}`;

function parse(value: string | null): Stored | null {
  if (value === null) return null;
  try {
    const stored = JSON.parse(value) as Partial<Stored>;
    return typeof stored.u === 'string' && Array.isArray(stored.c) ? (stored as Stored) : null;
  } catch {
    return null;
  }
}

/**
 * Remembers that `participant.client` received tokens in the session: nothing to write when it is
 * already the most recent one, else one compare-and-set (retried under contention). Clients
 * without a back-channel logout URI are not remembered.
 */
export async function rememberParticipant(
  ctx: Pick<Context, 'storage' | 'clock' | 'session' | 'logger'>,
  maxClients: number,
  participant: SessionParticipant,
): Promise<void> {
  const { client, userId, sid } = participant;
  if (client.backchannelLogoutUri === undefined) return;
  const { kv } = ctx.storage;
  const key = keyOf(sid);
  for (let attempt = 0; attempt < UPDATE_ATTEMPTS; attempt++) {
    const now = ctx.clock.now();
    const current = await kv.get(key, now);
    const stored = parse(current);
    // A sid is one session's (random, 128 bits): another user's record under it is not this one.
    if (stored !== null && stored.u !== userId) return;
    if (stored?.c[0] === client.id) return;
    const clients = [client.id, ...(stored?.c ?? []).filter((id) => id !== client.id)].slice(0, maxClients);
    const value = JSON.stringify({ u: userId, c: clients } satisfies Stored);
    const expiresAt = addSeconds(now, ctx.session.absoluteTimeout);
    const written =
      current === null
        ? await kv.add(key, value, expiresAt, now)
        : await kv.swap(key, current, value, expiresAt, now);
    if (written) return;
  }
  ctx.logger.warn(
    'gatehouse: the relying parties of a session could not be updated (too many concurrent token requests)',
  );
}

/**
 * The ids of the clients to tell that `session` ended, taken: the record is gone afterwards, so
 * each is told once whoever else ends the session.
 */
export async function takeParticipants(
  ctx: Pick<Context, 'storage' | 'clock'>,
  session: EndedSession,
): Promise<readonly string[]> {
  const stored = parse(await ctx.storage.kv.take(keyOf(session.sid), ctx.clock.now()));
  return stored !== null && stored.u === session.userId ? stored.c : [];
}
