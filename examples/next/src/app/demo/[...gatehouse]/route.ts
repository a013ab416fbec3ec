/** Every route of the demo Gatehouse instance (`/demo/...`), through `@gatehousejs/next`. */
import { handlers } from '@gatehousejs/next';
import { getDemo } from '../../../lib/demo';

// The instance is created at the first request (its issuer depends on PORT), never at build time.
export const dynamic = 'force-dynamic';

export const { GET, HEAD, POST, OPTIONS } = handlers(async () => (await getDemo()).demo.gatehouse);
