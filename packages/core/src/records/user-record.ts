import { recordedText } from '../recorded-text.js';
import { fieldSpellings, isPlainObject, misspeltFields, shownValue } from './record-shape.js';

/**
 * The check of a {@link UserRecord} a host's `UserStore` returns (`verifyPassword`, `findUser`),
 * where it enters Gatehouse: a record without a usable `id` would become a token whose `sub` is
 * `undefined`, or a 500 later; it is refused (the user is treated as unknown) and logged once,
 * naming the user and the field.
 */

/** The fields that matter (`username` is for display only), and other spellings of them. */
const USER_FIELDS = fieldSpellings({
  id: ['userId', 'user_id', 'sub', '_id', 'uuid'],
  claims: [],
});

/**
 * Record objects whose fields passed (the id is compared on every lookup), as for client records
 * (`client-record.ts`): a store that returns the same object each time (`memoryUserStore`, a cache)
 * pays for the check once, instead of on every refresh and userinfo request. A store that changes
 * a record should return a new object, as immutable records do.
 */
const sound = new WeakSet<object>();

/**
 * What is wrong with `record` as a user, one `field: problem` line each; empty when it can be used.
 * `userId` is the id asked for (`findUser`), absent for a password check.
 */
export function userRecordProblems(record: unknown, method: string, userId?: string): string[] {
  if (!isPlainObject(record)) return [`${method} returned ${shownValue(record)}, not a UserRecord object`];
  if (sound.has(record))
    return userId === undefined || record.id === userId ? [] : [idProblem(record.id, userId)];
  const problems = fieldProblems(record);
  if (problems.length === 0) sound.add(record);
  if (typeof record.id === 'string' && record.id !== '' && userId !== undefined && record.id !== userId)
    problems.push(idProblem(record.id, userId));
  return problems;
}

/** A case-insensitive or trimming lookup: user ids are compared exactly. */
const idProblem = (id: unknown, userId: string) =>
  `id: the store returned the record of ${JSON.stringify(id)} for ${JSON.stringify(recordedText(userId))}`;

/** The problems of the record's fields, whatever id it was asked for. */
function fieldProblems(record: Record<string, unknown>): string[] {
  const problems = misspeltFields(record, USER_FIELDS);
  const fail = (field: string, problem: string) => {
    if (!problems.some((line) => line.startsWith(`${field}:`))) problems.push(`${field}: ${problem}`);
  };
  if (typeof record.id !== 'string' || record.id === '') {
    const hint = typeof record.id === 'number' ? ' (convert it: String(row.id))' : '';
    fail(
      'id',
      `expected the user id (the sub claim) as a non-empty string, got ${shownValue(record.id)}${hint}`,
    );
  }
  if (record.username !== undefined && typeof record.username !== 'string')
    fail('username', `expected a string, got ${shownValue(record.username)}`);
  if (record.claims !== undefined) {
    if (!isPlainObject(record.claims))
      fail('claims', `expected an object of claims, got ${shownValue(record.claims)}`);
    // The sub claim is the user id (OpenID Connect Core §5.3.2); a second one could contradict it.
    else if ('sub' in record.claims) fail('claims.sub', 'must not be set: the sub claim is the user id');
  }
  return problems;
}
