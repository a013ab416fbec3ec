/**
 * The demo's REST resource: `POST {base}/api/v1/tickets` lists sample tickets of the
 * caller, `POST {base}/api/v1/tickets/create` opens one. It shows how a host protects its own
 * operations with `defineOperations`: bearer tokens of either family (no particular scope) and the
 * session cookie, with CORS for allowed origins; and how an operation checks RFC 9396
 * authorization details (`ticket_access`, {@link TICKET_ACCESS_TYPE}) beyond the scope.
 */

import { type Gatehouse, type GatehouseHost, ProtocolError } from '@gatehousejs/core';
import {
  type AuthorizationDetail,
  type AuthorizationDetailType,
  authorizationDetailsOf,
  type Caller,
  defineOperations,
  readBodyText,
} from '@gatehousejs/core/protect';

/** One ticket of the listing (the shape is the demo's own). */
export interface Ticket {
  /** E.g. `TCK-3f2a-001`: stable for a caller. */
  readonly id: string;
  readonly title: string;
  readonly status: 'open' | 'in_progress' | 'resolved' | 'closed';
  /** ISO 8601, UTC; the listing is newest first. */
  readonly createdAt: string;
  /** The `sub` of the caller the ticket belongs to. */
  readonly ownerSub: string;
}

/** The response body of the listing. */
export interface TicketList {
  readonly tickets: readonly Ticket[];
}

/** The response body of a created ticket. */
export interface CreatedTicket {
  readonly ticket: Ticket;
}

/** The demo's RFC 9396 authorization detail type: access to the caller's support tickets. */
export const TICKET_ACCESS = 'ticket_access';

/** The actions a `ticket_access` detail may name. */
export const TICKET_ACTIONS = ['read', 'write'] as const;

/**
 * A `ticket_access` authorization detail: `{ "type": "ticket_access", "actions": ["read"] }`,
 * `actions` a non-empty subset of `read` (list tickets) and `write` (open tickets); no other member.
 */
export interface TicketAccess extends AuthorizationDetail {
  readonly type: typeof TICKET_ACCESS;
  readonly actions: readonly (typeof TICKET_ACTIONS)[number][];
}

/**
 * How the demo instances accept `ticket_access` (the `authorizationDetails.types` option): the
 * validator refuses anything but a non-empty subset of `read` and `write` (and any other member),
 * the consent page says what the actions allow, in English or French.
 */
export const TICKET_ACCESS_TYPE: AuthorizationDetailType = {
  validate(detail) {
    const extra = Object.keys(detail).filter((member) => member !== 'type' && member !== 'actions');
    if (extra.length > 0) return `unknown member ${JSON.stringify(extra[0])}: only "actions" is defined.`;
    const { actions } = detail;
    if (actions === undefined || actions.length === 0) return '"actions" must name "read", "write" or both.';
    const unknown = actions.find((action) => !(TICKET_ACTIONS as readonly string[]).includes(action));
    if (unknown !== undefined) return `unknown action ${JSON.stringify(unknown)}: "read" or "write".`;
    if (new Set(actions).size !== actions.length) return '"actions" names an action twice.';
    return undefined;
  },
  describe(detail, locale) {
    const actions = detail.actions ?? [];
    const read = actions.includes('read');
    const write = actions.includes('write');
    if (locale === 'fr')
      return read && write
        ? 'Lire et créer vos tickets de support'
        : write
          ? 'Créer des tickets de support en votre nom'
          : 'Lire vos tickets de support';
    return read && write
      ? 'Read and open your support tickets'
      : write
        ? 'Open support tickets in your name'
        : 'Read your support tickets';
  },
};

/**
 * Whether the caller's authorization details allow `action` on tickets: a caller without details
 * (a session, a token granted by scope alone) is left to the operation's other rules; a token with
 * details needs a `ticket_access` detail naming the action (RFC 9396: the details say exactly what
 * the token may do).
 */
export function detailsAllow(caller: Caller, action: (typeof TICKET_ACTIONS)[number]): boolean | undefined {
  if (caller.authorizationDetails === undefined) return undefined;
  return authorizationDetailsOf<TicketAccess>(caller, TICKET_ACCESS).some((detail) =>
    detail.actions.includes(action),
  );
}

/** Bounds and default of the `limit` field. */
export const TICKET_LIMIT = { min: 1, max: 100, default: 20 } as const;
/** How many sample tickets each caller has (so a large `limit` returns fewer). */
export const SAMPLE_TICKETS_PER_CALLER = 50;
/** Largest accepted request body, in bytes. */
const MAX_BODY_BYTES = 16 * 1024;

const TITLES = [
  'Printer on floor 2 jams on duplex',
  'VPN drops every hour',
  'Request a second monitor',
  'Password reset email not received',
  'Invoice export shows wrong currency',
  'Calendar invites arrive twice',
  'Laptop battery swells',
  'Access to the finance share',
];
const STATUSES: readonly Ticket['status'][] = ['open', 'in_progress', 'resolved', 'closed'];
const NEWEST = Date.UTC(2026, 0, 15, 9, 0, 0);

/**
 * The caller's sample tickets, newest first: deterministic (the same caller always gets the same
 * list) and different between callers.
 */
export function sampleTickets(ownerSub: string, limit: number = TICKET_LIMIT.default): Ticket[] {
  const seed = fnv1a(ownerSub);
  const prefix = `TCK-${(seed & 0xffff).toString(16).padStart(4, '0')}`;
  const count = Math.min(limit, SAMPLE_TICKETS_PER_CALLER);
  const tickets: Ticket[] = [];
  for (let n = 0; n < count; n++) {
    tickets.push({
      id: `${prefix}-${String(SAMPLE_TICKETS_PER_CALLER - n).padStart(3, '0')}`,
      title: TITLES[(seed + n) % TITLES.length]!,
      status: STATUSES[(seed + 3 * n) % STATUSES.length]!,
      createdAt: new Date(NEWEST - n * 7 * 3_600_000 - (seed % 3_600) * 1000).toISOString(),
      ownerSub,
    });
  }
  return tickets;
}

/**
 * The `limit` of a listing request: the body must be a JSON object (`Content-Type:
 * application/json`) whose optional `limit` is an integer from 1 to 100 (default 20). Anything else
 * is a 400 `invalid_request` naming the problem. Other fields are ignored.
 */
export async function readTicketLimit(request: Request): Promise<number> {
  const type = (request.headers.get('content-type') ?? '').split(';')[0]!.trim().toLowerCase();
  if (type !== 'application/json') {
    throw new ProtocolError(
      'invalid_request',
      'The request body must be JSON (Content-Type: application/json).',
    );
  }
  let body: unknown;
  try {
    body = JSON.parse(await readBodyText(request, MAX_BODY_BYTES));
  } catch (error) {
    if (error instanceof ProtocolError) throw error;
    throw new ProtocolError('invalid_request', 'The request body is not valid JSON.');
  }
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    throw new ProtocolError('invalid_request', 'The request body must be a JSON object.');
  }
  const { limit } = body as { limit?: unknown };
  if (limit === undefined) return TICKET_LIMIT.default;
  if (
    typeof limit !== 'number' ||
    !Number.isInteger(limit) ||
    limit < TICKET_LIMIT.min ||
    limit > TICKET_LIMIT.max
  ) {
    throw new ProtocolError(
      'invalid_request',
      `The "limit" field must be an integer from ${TICKET_LIMIT.min} to ${TICKET_LIMIT.max}.`,
    );
  }
  return limit;
}

/**
 * The demo's REST API on an instance (or on every instance of a host, each authenticating its own
 * callers): answers `POST {base}/api/v1/tickets` (and its CORS preflight) and resolves `undefined`
 * for every other request, so hosts fall through to their own routes. The response is
 * `{ "tickets": Ticket[] }` with at most `limit` tickets, never cached.
 */
export function demoApi(
  gatehouse: Gatehouse | GatehouseHost,
): (request: Request) => Promise<Response | undefined> {
  return defineOperations(gatehouse, {
    'POST /api/v1/tickets': {
      schemes: ['bearer', 'session'],
      // Users with any token or their session; services (client credentials) with tickets:read.
      subjects: ['user', 'client'],
      handler: async (request, caller) => {
        if (detailsAllow(caller, 'read') === false) throw insufficientDetails('read');
        if (caller.subject.kind === 'client' && !caller.scope.includes(CLIENT_TICKETS_SCOPE)) {
          throw new ProtocolError(
            'insufficient_scope',
            `A client acting for itself needs the "${CLIENT_TICKETS_SCOPE}" scope.`,
          );
        }
        const limit = await readTicketLimit(request);
        const body: TicketList = { tickets: sampleTickets(caller.sub, limit) };
        return Response.json(body, { headers: { 'Cache-Control': 'no-store' } });
      },
    },
    'POST /api/v1/tickets/create': {
      schemes: ['bearer', 'session'],
      subjects: ['user', 'client'],
      // Opening a ticket is a write: the user's own session may, a token only with a
      // `ticket_access` detail naming "write" (a scope alone never allows it).
      handler: async (request, caller) => {
        if (caller.scheme !== 'session' && detailsAllow(caller, 'write') !== true)
          throw insufficientDetails('write');
        const title = await readTicketTitle(request);
        const ticket: Ticket = {
          id: `TCK-new-${crypto.randomUUID().slice(0, 8)}`,
          title,
          status: 'open',
          createdAt: new Date().toISOString(),
          ownerSub: caller.sub,
        };
        const body: CreatedTicket = { ticket };
        return Response.json(body, { status: 201, headers: { 'Cache-Control': 'no-store' } });
      },
    },
  });
}

/** 403 for a token whose authorization details do not allow the action. */
function insufficientDetails(action: string): ProtocolError {
  return new ProtocolError(
    'insufficient_scope',
    `The token's authorization details do not allow "${action}" on tickets: ask for a ${TICKET_ACCESS} detail with "actions": ["${action}"].`,
  );
}

/** Longest title of a new ticket, in characters. */
const MAX_TITLE = 200;

/**
 * The `title` of a new ticket: the body must be a JSON object (`Content-Type: application/json`)
 * with a non-empty string `title` of at most 200 characters; anything else is a 400.
 */
export async function readTicketTitle(request: Request): Promise<string> {
  const type = (request.headers.get('content-type') ?? '').split(';')[0]!.trim().toLowerCase();
  if (type !== 'application/json')
    throw new ProtocolError(
      'invalid_request',
      'The request body must be JSON (Content-Type: application/json).',
    );
  let body: unknown;
  try {
    body = JSON.parse(await readBodyText(request, MAX_BODY_BYTES));
  } catch (error) {
    if (error instanceof ProtocolError) throw error;
    throw new ProtocolError('invalid_request', 'The request body is not valid JSON.');
  }
  const title = (body as { title?: unknown } | null)?.title;
  if (typeof title !== 'string' || title.trim() === '' || title.length > MAX_TITLE)
    throw new ProtocolError(
      'invalid_request',
      `The "title" field must be a string of 1 to ${MAX_TITLE} characters.`,
    );
  return title.trim();
}

/** The scope a client acting for itself (client credentials) needs for the tickets API. */
export const CLIENT_TICKETS_SCOPE = 'tickets:read';

/** FNV-1a, 32 bits: a stable, cheap spread of the caller id (not a security function). */
function fnv1a(text: string): number {
  let hash = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    hash ^= text.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193) >>> 0;
  }
  return hash;
}
