import type { RequestLimits } from '../context.js';
import { count, lifetime } from '../option-values.js';
import type { GatehouseOptions } from '../options.js';
import { PasswordCheckGate } from './password-check-gate.js';

/**
 * The bounds on what one request may make the instance read or compute: the body cap
 * (`maxBodyBytes`), the brute-force limits of password checks (`rateLimit`) and the checks in
 * flight (`passwordChecks`).
 */
export function requestLimits(
  options: GatehouseOptions,
  clientAddress: (request: Request) => string | undefined,
): RequestLimits {
  return {
    maxBodyBytes: count('maxBodyBytes', options.maxBodyBytes, 65_536),
    rateLimit: {
      maxFailuresPerUsername: count(
        'rateLimit.maxFailuresPerUsername',
        options.rateLimit?.maxFailuresPerUsername,
        5,
      ),
      maxFailuresPerAddress: count(
        'rateLimit.maxFailuresPerAddress',
        options.rateLimit?.maxFailuresPerAddress,
        50,
      ),
      windowSeconds: lifetime('rateLimit.windowSeconds', options.rateLimit?.windowSeconds, 900),
      clientAddress,
    },
    passwordChecks: new PasswordCheckGate(
      count('passwordChecks.maxConcurrent', options.passwordChecks?.maxConcurrent, 4),
      count('passwordChecks.maxQueued', options.passwordChecks?.maxQueued, 32, 0),
    ),
  };
}
