/**
 * Every route of both demo instances (`/demo/...`, `/acme/...`), through `@gatehousejs/next`: one
 * catch-all under a dynamic first segment, answered by the demo host, which finds the instance in
 * the path (an unknown name gets its 404). The static `edge` segment wins over `[instance]`.
 */
import { handlers } from '@gatehousejs/next';
import { getDemo } from '../../../lib/demo';

// The host is created at the first request (its issuers depend on PORT), never at build time.
export const dynamic = 'force-dynamic';

export const { GET, HEAD, POST, OPTIONS } = handlers(async () => (await getDemo()).demo.host);
