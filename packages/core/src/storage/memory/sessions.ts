import { markTrusted } from '../guard.js';
import type { SessionRecord, SessionStore } from '../types.js';
import type { Clearable } from './clearable.js';
import { ExpiringMap } from './expiring-map.js';

/** In-memory {@link SessionStore}: the embedded default, for one process. */
export function memorySessionStore(): SessionStore & Clearable {
  const sessions = new ExpiringMap<SessionRecord>();
  return markTrusted({
    clear() {
      sessions.clear();
    },
    async createSession(record) {
      sessions.set(record.idHash, record, record.createdAt);
    },
    async findSession(idHash, now) {
      return sessions.get(idHash, now) ?? null;
    },
    async touchSession(idHash, lastSeenAt) {
      const session = sessions.get(idHash, lastSeenAt);
      if (session) sessions.set(idHash, { ...session, lastSeenAt }, lastSeenAt);
    },
    async deleteSession(idHash) {
      sessions.delete(idHash);
    },
  });
}
