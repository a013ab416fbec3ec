/**
 * The app's OpenID Provider at `/accounts` (issue 29): every Gatehouse route of the instance of
 * `lib/accounts.ts`, which hands sign-in to the app's own `/login` page. The static `accounts`
 * segment wins over `[instance]`.
 */
import { handlers } from '@gatehousejs/next';
import { getAccounts } from '../../../lib/accounts';

export const dynamic = 'force-dynamic';

export const { GET, HEAD, POST, OPTIONS } = handlers(async () => (await getAccounts()).gatehouse);
