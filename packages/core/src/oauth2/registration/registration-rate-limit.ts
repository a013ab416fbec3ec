import type { Context } from '../../context.js';
import { chargeClientNetwork } from '../../http/address-rate-limit.js';
import type { Payer } from '../../storage/kv/fair-share.js';
import type { DynamicRegistrationSettings } from './settings.js';

/**
 * Charges one registration to the client network of `request` (`chargeClientNetwork`): over
 * `maxPerAddress` in `windowSeconds`, 429 `too_many_requests` with `Retry-After`. Answers the
 * payer: the registration is saved charged to its partition (the network's aggregate), which a full
 * registry makes room from when it is the heaviest.
 */
export function chargeRegistration(
  ctx: Pick<Context, 'storage' | 'clock' | 'limits'>,
  request: Request,
  settings: DynamicRegistrationSettings,
): Promise<Payer> {
  return chargeClientNetwork(ctx, request, {
    name: 'reg',
    max: settings.maxPerAddress,
    windowSeconds: settings.windowSeconds,
    description: 'Too many client registrations from this address; try again later.',
  });
}
