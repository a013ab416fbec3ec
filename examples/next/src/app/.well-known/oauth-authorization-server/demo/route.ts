/** RFC 8414 §3: the metadata of the issuer `/demo` at its path-inserted location. */
import { handlers } from '@gatehousejs/next';
import { getDemo } from '../../../../lib/demo';

export const dynamic = 'force-dynamic';

export const { GET, HEAD } = handlers(async () => (await getDemo()).demo.gatehouse);
