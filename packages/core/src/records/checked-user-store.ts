import { recordedText } from '../recorded-text.js';
import type { UserLookup, UserRecord, UserStore } from '../storage/types.js';
import { type RecordProblems, userNamed } from './record-problems.js';
import { userRecordProblems } from './user-record.js';

/**
 * The host's {@link UserStore} with each record it returns checked where it enters
 * (`user-record.ts`): a record that cannot be used is logged once and taken as no user, so the
 * login fails, and a session, refresh token or userinfo request of that user gets its usual 4xx
 * (as for a deleted user), never a 500.
 */
export function checkedUserStore(
  store: UserLookup & Partial<Pick<UserStore, 'verifyPassword'>>,
  problems: RecordProblems,
): UserLookup & Partial<Pick<UserStore, 'verifyPassword'>> {
  // The record's label is built only for a report: `findUser` runs on every refresh, and its
  // `JSON.stringify` of the id cost ~1 k instructions per call.
  const checked = (
    record: UserRecord | null,
    method: string,
    userId: string | undefined,
    username?: string,
  ) => {
    if (record === null || record === undefined) return null;
    const found = userRecordProblems(record, method, userId);
    if (found.length === 0) return record;
    const id = (record as { id?: unknown }).id;
    const who =
      typeof id === 'string' && id !== ''
        ? userNamed(id)
        : userId !== undefined
          ? userNamed(userId)
          : `the user of username ${JSON.stringify(recordedText(username ?? ''))}`;
    problems.report(who, `UserStore.${method}`, found);
    return null;
  };
  const verifyPassword = store.verifyPassword?.bind(store);
  return {
    // Only a store with passwords has it: the built-in login page and the Auth API need it.
    ...(verifyPassword
      ? {
          async verifyPassword(username: string, password: string) {
            const user = await verifyPassword(username, password);
            return checked(user, 'verifyPassword', undefined, username);
          },
        }
      : {}),
    async findUser(userId: string) {
      return checked(await store.findUser(userId), 'findUser', userId);
    },
  };
}
