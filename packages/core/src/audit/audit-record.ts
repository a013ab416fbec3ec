import type { AdminActor, EventContext, GatehouseEvent } from '../events.js';
import { recordedText } from '../recorded-text.js';
import type { Writable } from '../writable.js';

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

/**
 * The audit record of an event. Built on every event of an instance with an audit sink (the admin
 * API keeps one), so on every token request: members are set one by one in the record's order,
 * with no intermediate objects.
 */
export function auditRecord(event: GatehouseEvent, context: EventContext): AuditRecord {
  const { outcome, reason } = outcomeOf(event);
  const record: Writable<AuditRecord> = {
    time: isoTime(context.time),
    type: event.type,
    instance: context.instance,
    outcome,
  };
  if (reason !== undefined) record.reason = recordedText(reason);
  if ('clientId' in event && event.clientId !== undefined) record.clientId = recordedText(event.clientId);
  const subject = subjectOf(event);
  if (subject !== undefined) {
    record.subject = recordedText(subject);
    record.subjectType = event.type === 'token.issued' && event.subject.kind === 'client' ? 'client' : 'user';
  }
  if (context.clientAddress !== undefined) record.clientAddress = recordedText(context.clientAddress);
  let details: Record<string, string> | undefined;
  const fields = event as unknown as Record<string, unknown>;
  for (const name of Object.keys(fields)) {
    if (SHARED_FIELDS.has(name)) continue;
    const value = fields[name];
    const text =
      typeof value === 'string' ? recordedText(value) : typeof value === 'number' ? String(value) : undefined;
    if (text === undefined) continue;
    details ??= {};
    details[name] = text;
  }
  if (details !== undefined) record.details = details;
  if (event.type === 'admin.action') record.actor = recordedActor(event.actor);
  return record;
}

/**
 * `time` as ISO 8601 (`toISOString`). Events come by the thousand a second on a busy server, and
 * within one second only the milliseconds change: the second's text is kept and they are appended.
 */
function isoTime(time: number): string {
  // A Date keeps whole milliseconds, truncated (ECMA-262 TimeClip).
  const whole = Math.trunc(time);
  const second = Math.floor(whole / 1000);
  if (second !== lastSecond) {
    const iso = new Date(time).toISOString(); // RangeError for an invalid time, as before
    // Only `YYYY-MM-DDTHH:MM:SS.sssZ` (the years 0 to 9999) is kept.
    if (iso.length !== 24) return iso;
    lastSecond = second;
    lastSecondText = iso.slice(0, 20);
  }
  const milliseconds = whole - second * 1000;
  return `${lastSecondText}${milliseconds < 10 ? '00' : milliseconds < 100 ? '0' : ''}${milliseconds}Z`;
}
let lastSecond = Number.NaN;
let lastSecondText = '';

function recordedActor(actor: AdminActor): AdminActor {
  return {
    ...(actor.clientId === undefined ? {} : { clientId: recordedText(actor.clientId) }),
    subject: recordedText(actor.subject),
    subjectType: actor.subjectType,
  };
}

/** Event fields that are record fields rather than details. */
const SHARED_FIELDS = new Set(['type', 'clientId', 'userId', 'reason', 'subject']);

/** What {@link outcomeOf} answers for most events (one object for them all). */
const SUCCESS: Outcome = { outcome: 'success' };

interface Outcome {
  readonly outcome: 'success' | 'failure';
  readonly reason?: string;
}

function outcomeOf(event: GatehouseEvent): Outcome {
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
      return event.reason === undefined ? SUCCESS : { outcome: 'success', reason: event.reason };
    default:
      return SUCCESS;
  }
}

/** Who the event is about: a token's subject (a user or a client), else the event's user. */
function subjectOf(event: GatehouseEvent): string | undefined {
  if (event.type === 'token.issued')
    return event.subject.kind === 'user' ? event.subject.userId : event.subject.clientId;
  if ('userId' in event && typeof event.userId === 'string') return event.userId;
  return undefined;
}
