import type { Subject } from './types.js';

/**
 * The subject of a user. Subjects are compared and rebuilt often (every token, caller and event),
 * so they are small frozen objects.
 */
export function userSubject(userId: string): Subject {
  return Object.freeze({ kind: 'user', userId });
}

/** The subject of a client acting for itself (client credentials, RFC 6749 §4.4). */
export function clientSubject(clientId: string): Subject {
  return Object.freeze({ kind: 'client', clientId });
}

/**
 * The `sub` claim of a subject (RFC 9068 §2.2): the user id, or for a client acting for itself its
 * client id. Access tokens of a client subject also carry `sub_kind: "client"`, so that a user and a
 * client that happen to share an identifier are never confused.
 */
export function subjectId(subject: Subject): string {
  return subject.kind === 'user' ? subject.userId : subject.clientId;
}
