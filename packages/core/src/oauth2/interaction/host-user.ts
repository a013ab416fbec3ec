import type { HostUser } from './types.js';

/** Bounds of what a host's user carries into sessions, codes and tokens (docs/security.md). */
export const HOST_USER_LIMITS = { sub: 255, acr: 255, amrValues: 10, amrValue: 32 } as const;

/** A host's user, checked: `authTime` in epoch ms when known. */
export interface CheckedHostUser {
  readonly sub: string;
  readonly authTime?: number;
  readonly acr?: string;
  readonly amr?: readonly string[];
}

/**
 * Checks a user the host hands over (the `currentUser` hook's answer, a sign-in result): a `sub` of
 * 1 to 255 characters, an `authTime` that is a time not after `now` (plus the clock tolerance; one
 * slightly ahead counts as `now`), at most 10 `amr` values of 1 to 32 characters and an `acr` of 1
 * to 255. Returns the problem in words, or the checked user.
 */
export function checkHostUser(
  user: unknown,
  now: number,
  toleranceSeconds: number,
): { ok: true; user: CheckedHostUser } | { ok: false; problem: string } {
  if (typeof user !== 'object' || user === null) return { ok: false, problem: 'expected an object' };
  const { sub, authTime, amr, acr } = user as HostUser;
  if (typeof sub !== 'string' || sub.length === 0 || sub.length > HOST_USER_LIMITS.sub)
    return { ok: false, problem: `sub must be a string of 1 to ${HOST_USER_LIMITS.sub} characters` };
  let time: number | undefined;
  if (authTime !== undefined) {
    if (typeof authTime !== 'number' || !Number.isFinite(authTime) || authTime <= 0)
      return { ok: false, problem: 'authTime must be a time in epoch milliseconds' };
    // Seconds instead of milliseconds would be a sign-in in 1970: say so rather than deny every max_age.
    if (authTime < 1e11)
      return { ok: false, problem: 'authTime must be in milliseconds (Date.now()), not seconds' };
    if (authTime > now + toleranceSeconds * 1000) return { ok: false, problem: 'authTime is in the future' };
    time = Math.min(Math.floor(authTime), now);
  }
  if (amr !== undefined) {
    if (
      !Array.isArray(amr) ||
      amr.length > HOST_USER_LIMITS.amrValues ||
      !amr.every((v) => typeof v === 'string' && v.length > 0 && v.length <= HOST_USER_LIMITS.amrValue)
    )
      return {
        ok: false,
        problem: `amr must be at most ${HOST_USER_LIMITS.amrValues} strings of 1 to ${HOST_USER_LIMITS.amrValue} characters`,
      };
  }
  if (acr !== undefined && (typeof acr !== 'string' || acr.length === 0 || acr.length > HOST_USER_LIMITS.acr))
    return { ok: false, problem: `acr must be a string of 1 to ${HOST_USER_LIMITS.acr} characters` };
  return {
    ok: true,
    user: {
      sub,
      ...(time === undefined ? {} : { authTime: time }),
      ...(acr === undefined ? {} : { acr }),
      ...(amr === undefined ? {} : { amr: [...new Set(amr)] }),
    },
  };
}
