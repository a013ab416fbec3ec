/**
 * The demo's REST resource: `POST {base}/api/v1/tickets` lists sample tickets of the
 * caller. It shows how a host protects its own operations with `defineOperations`: bearer tokens of
 * either family (no particular scope) and the session cookie, with CORS for allowed origins.
 */

import { type Gatehouse, type GatehouseHost, ProtocolError } from '@gatehousejs/core';
import { defineOperations, readBodyText } from '@gatehousejs/core/protect';

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
  });
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
