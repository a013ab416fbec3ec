/** The demo's REST API, `POST /demo/api/v1/tickets`: bearer tokens or the session cookie. */
import { operations } from '@gatehousejs/next';
import { getDemo } from '../../../../../lib/demo';

export const dynamic = 'force-dynamic';

export const { POST, OPTIONS } = operations(async (request) => (await getDemo()).api(request));
