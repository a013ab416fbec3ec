/** RFC 8414 §3: the metadata of the issuers `/demo` and `/acme` at their path-inserted locations. */
import { handlers } from '@gatehousejs/next';
import { getDemo } from '../../../../lib/demo';

export const dynamic = 'force-dynamic';

export const { GET, HEAD } = handlers(async () => (await getDemo()).demo.host);
