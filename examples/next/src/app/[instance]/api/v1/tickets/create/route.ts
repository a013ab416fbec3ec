/**
 * The demo's REST API, `POST /{demo,acme}/api/v1/tickets/create`: opens a ticket for a token whose
 * RFC 9396 `ticket_access` details allow `write`, or for the session cookie of the instance the path
 * names (the static segments win over the instance's catch-all).
 */
import { operations } from '@gatehousejs/next';
import { getDemo } from '../../../../../../lib/demo';

export const dynamic = 'force-dynamic';

export const { POST, OPTIONS } = operations(async (request) => (await getDemo()).api(request));
