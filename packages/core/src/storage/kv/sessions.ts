import type { KeyValueStore, SessionRecord } from '../types.js';
import { sessionKey } from './keys.js';
import type { SessionStore } from './state-stores.js';

/**
 * {@link SessionStore} on the key-value store: one JSON record per session, kept until the
 * session's absolute end. A touch is a compare-and-set of the record read: when a concurrent touch
 * or a delete changed it first, this touch is dropped (the other one recorded activity as recent,
 * and a deleted session stays deleted).
 */
export function kvSessionStore(kv: KeyValueStore): SessionStore {
  return {
    async createSession(record) {
      await kv.set(sessionKey(record.idHash), JSON.stringify(record), record.expiresAt);
    },
    async findSession(idHash, now) {
      return parseSession(await kv.get(sessionKey(idHash), now));
    },
    async touchSession(idHash, lastSeenAt) {
      const key = sessionKey(idHash);
      const current = await kv.get(key, lastSeenAt);
      const record = parseSession(current);
      if (current === null || record === null || record.lastSeenAt >= lastSeenAt) return;
      await kv.swap(key, current, JSON.stringify({ ...record, lastSeenAt }), record.expiresAt, lastSeenAt);
    },
    async deleteSession(idHash) {
      await kv.delete(sessionKey(idHash));
    },
  };
}

function parseSession(value: string | null): SessionRecord | null {
  if (value === null) return null;
  try {
    const record = JSON.parse(value) as SessionRecord;
    return typeof record === 'object' && record !== null && typeof record.userId === 'string' ? record : null;
  } catch {
    return null;
  }
}
