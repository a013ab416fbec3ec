import type { Context } from '../../context.js';
import { addressCharge } from '../../http/address-charge.js';
import type { DynamicRegistrationSettings } from './settings.js';

/**
 * Charges one registration to the client address of `request` ({@link addressCharge}, bucket
 * `reg`); over `maxPerAddress` per window it throws 429 `too_many_requests` with `Retry-After`.
 */
export async function chargeRegistration(
  ctx: Context,
  request: Request,
  settings: DynamicRegistrationSettings,
): Promise<void> {
  await addressCharge(
    { store: ctx.storage.rateLimits, clientAddress: ctx.rateLimit.clientAddress, now: ctx.now },
    'reg',
    settings,
    'Too many client registrations from this address; try again later.',
  )(request);
}
