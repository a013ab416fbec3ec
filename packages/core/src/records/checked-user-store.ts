import type { UserRecord, UserStore } from '../storage/types.js';
import { type RecordProblems, userNamed } from './record-problems.js';
import { userRecordProblems } from './user-record.js';

/**
 * The host's {@link UserStore} with each record it returns checked where it enters
 * (`user-record.ts`): a record that cannot be used is logged once and taken as no user, so the
 * login fails, and a session, refresh token or userinfo request of that user gets its usual 4xx
 * (as for a deleted user), never a 500.
 */
export function checkedUserStore(store: UserStore, problems: RecordProblems): UserStore {
  const checked = (record: UserRecord | null, method: string, who: string, userId?: string) => {
    if (record === null || record === undefined) return null;
    const found = userRecordProblems(record, method, userId);
    if (found.length === 0) return record;
    const id = (record as { id?: unknown }).id;
    problems.report(typeof id === 'string' && id !== '' ? userNamed(id) : who, `UserStore.${method}`, found);
    return null;
  };
  return {
    async verifyPassword(username, password) {
      const user = await store.verifyPassword(username, password);
      return checked(
        user,
        'verifyPassword',
        `the user of username ${JSON.stringify(username.slice(0, 200))}`,
      );
    },
    async findUser(userId) {
      return checked(await store.findUser(userId), 'findUser', userNamed(userId), userId);
    },
  };
}
