import type { AdminActor, EventContext, GatehouseEvent } from '../events.js';
import { recordedText } from '../recorded-text.js';

/**
 * One security-relevant event as an audit record: flat, JSON-serializable, the same fields for
 * every event type. Built from the event and its {@link EventContext}; it carries identifiers only,
 * never a secret, token, authorization code or password (the events carry none). Every text field
 * but `time`, `type`, `instance` and `outcome` is cut to 256 characters
 * (ending `…[cut from N characters]`), so that a request presenting a huge `client_id` or username
 * adds a bounded record.
 */
export interface AuditRecord {
  /** When, as an ISO 8601 UTC timestamp (from the `now` option). */
  readonly time: string;
  /** The event type (`login.failed`, `token.issued`, …): see "Audit events" in the docs. */
  readonly type: GatehouseEvent['type'];
  /** The issuer of the instance. */
  readonly instance: string;
  /** `failure` for a refused attempt or a detected attack (replay, reuse), else `success`. */
  readonly outcome: 'success' | 'failure';
  /** Why, for a failure (`invalid_credentials`, `refresh_token_reused`, …) or a host-given reason. */
  readonly reason?: string;
  /** The client concerned (for a failed client authentication: as presented, it may not exist). */
  readonly clientId?: string;
  /** Who: the user id, or the client id of a client acting for itself (`subjectType`). */
  readonly subject?: string;
  readonly subjectType?: 'user' | 'client';
  /** The client's network address, when the event comes from a request and the adapter recorded one. */
  readonly clientAddress?: string;
  /** Who did it, for an admin API action (`admin.action`), its text fields cut like the others. */
  readonly actor?: AdminActor;
  /**
   * The rest of the event, by type: `grantType`, `kind` (of a revoked token), `method` and
   * `registeredMethod` (client authentication), `via`, `username` (as typed, cut), `grantId`, `scope`,
   * `sessionId`, `attempt`, `status` and `retryInMs` (back-channel logout; numbers as decimal text).
   */
  readonly details?: Readonly<Record<string, string>>;
}

/** Receives audit records (option `audit`). A returned promise is not awaited; a rejection is logged. */
export interface AuditSink {
  write(record: AuditRecord): void | Promise<void>;
}

/** The audit record of an event. */
export function auditRecord(event: GatehouseEvent, context: EventContext): AuditRecord {
  const { outcome, reason } = outcomeOf(event);
  const who = subjectOf(event);
  const details: Record<string, string> = {};
  for (const [name, value] of Object.entries(event)) {
    if (SHARED_FIELDS.has(name)) continue;
    if (typeof value === 'string') details[name] = recordedText(value);
    else if (typeof value === 'number') details[name] = String(value);
  }
  return {
    time: new Date(context.time).toISOString(),
    type: event.type,
    instance: context.instance,
    outcome,
    ...(reason === undefined ? {} : { reason: recordedText(reason) }),
    ...('clientId' in event && event.clientId !== undefined
      ? { clientId: recordedText(event.clientId) }
      : {}),
    ...(who.subject === undefined
      ? {}
      : { subject: recordedText(who.subject), subjectType: who.subjectType }),
    ...(context.clientAddress === undefined ? {} : { clientAddress: recordedText(context.clientAddress) }),
    ...(Object.keys(details).length > 0 ? { details } : {}),
    ...(event.type === 'admin.action' ? { actor: recordedActor(event.actor) } : {}),
  };
}

function recordedActor(actor: AdminActor): AdminActor {
  return {
    ...(actor.clientId === undefined ? {} : { clientId: recordedText(actor.clientId) }),
    subject: recordedText(actor.subject),
    subjectType: actor.subjectType,
  };
}

/** Event fields that are record fields rather than details. */
const SHARED_FIELDS = new Set(['type', 'clientId', 'userId', 'reason', 'subject']);

function outcomeOf(event: GatehouseEvent): { outcome: 'success' | 'failure'; reason?: string } {
  switch (event.type) {
    case 'login.failed':
      return { outcome: 'failure', reason: 'invalid_credentials' };
    case 'login.rate_limited':
      return { outcome: 'failure', reason: 'rate_limited' };
    case 'code.replayed':
      return { outcome: 'failure', reason: 'code_replayed' };
    case 'refresh_token.reused':
      return { outcome: 'failure', reason: 'refresh_token_reused' };
    case 'client.authentication_failed':
    case 'signing_keys.refused':
      return { outcome: 'failure', reason: event.reason };
    case 'consent.denied':
    case 'ciba.denied':
      return { outcome: 'failure', reason: 'access_denied' };
    case 'backchannel_logout.failed':
    case 'backchannel_logout.abandoned':
      return { outcome: 'failure', reason: event.reason };
    case 'ciba.notify_failed':
      return { outcome: 'failure', reason: 'notify_failed' };
    case 'ciba.ping_failed':
      return { outcome: 'failure', reason: 'ping_failed' };
    case 'quota.reached':
      return { outcome: 'failure', reason: 'quota_reached' };
    case 'user.revoked':
      return event.reason === undefined
        ? { outcome: 'success' }
        : { outcome: 'success', reason: event.reason };
    default:
      return { outcome: 'success' };
  }
}

function subjectOf(event: GatehouseEvent): Pick<AuditRecord, 'subject' | 'subjectType'> {
  if (event.type === 'token.issued') {
    return event.subject.kind === 'user'
      ? { subject: event.subject.userId, subjectType: 'user' }
      : { subject: event.subject.clientId, subjectType: 'client' };
  }
  if ('userId' in event && typeof event.userId === 'string')
    return { subject: event.userId, subjectType: 'user' };
  return {};
}
