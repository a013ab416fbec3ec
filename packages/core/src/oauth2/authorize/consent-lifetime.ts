import { secondsToMs } from '../../time.js';

/**
 * How long a remembered consent lasts: a year, after which the client asks again. `revokeUser`
 * keeps a user's mark at least this long, so that no consent given before the mark counts again.
 */
export const CONSENT_TTL_MS = secondsToMs(365 * 86_400);
