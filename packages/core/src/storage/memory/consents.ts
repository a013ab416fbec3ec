import { markTrusted } from '../guard.js';
import type { ConsentRecord, ConsentStore } from '../types.js';
import type { Clearable } from './clearable.js';
import { ExpiringMap } from './expiring-map.js';

/** In-memory {@link ConsentStore}: the embedded default, for one process. */
export function memoryConsentStore(): ConsentStore & Clearable {
  const consents = new ExpiringMap<ConsentRecord>();
  const key = (userId: string, clientId: string) => `${userId.length}:${userId}${clientId}`;
  return markTrusted({
    clear() {
      consents.clear();
    },
    async findConsent(userId, clientId, now) {
      return consents.get(key(userId, clientId), now) ?? null;
    },
    async saveConsent(record) {
      consents.set(key(record.userId, record.clientId), record, 0);
    },
    async deleteConsent(userId, clientId) {
      consents.delete(key(userId, clientId));
    },
  });
}
