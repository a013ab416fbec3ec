import type { ConsentRecord, KeyValueStore } from '../types.js';
import { consentKey } from './keys.js';
import type { ConsentStore } from './state-stores.js';

/** {@link ConsentStore} on the key-value store: one JSON record per (user, client), until it expires. */
export function kvConsentStore(kv: KeyValueStore): ConsentStore {
  return {
    async findConsent(userId, clientId, now) {
      const value = await kv.get(await consentKey(userId, clientId), now);
      if (value === null) return null;
      try {
        const record = JSON.parse(value) as ConsentRecord;
        // The key is a digest of both ids: a record naming others is never answered.
        return record.userId === userId && record.clientId === clientId && record.expiresAt > now
          ? record
          : null;
      } catch {
        return null;
      }
    },
    async saveConsent(record) {
      await kv.set(
        await consentKey(record.userId, record.clientId),
        JSON.stringify(record),
        record.expiresAt,
      );
    },
    async deleteConsent(userId, clientId) {
      await kv.delete(await consentKey(userId, clientId));
    },
  };
}
