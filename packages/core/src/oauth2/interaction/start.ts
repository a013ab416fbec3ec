import type { Context } from '../../context.js';
import { invalidRequest } from '../../errors.js';
import { chargeClientNetwork } from '../../http/address-rate-limit.js';
import type { Answer } from '../../http/reply.js';
import { noStoreEmpty } from '../../http/responses.js';
import type { Payer } from '../../storage/kv/fair-share.js';
import { addSeconds } from '../../time.js';
import { randomSecret } from '../../tokens/secrets.js';
import { PAGE_PATHS } from '../../ui/paths.js';
import type { AuthorizationFlow } from '../authorize/flow.js';
import type { AuthorizationRequest } from '../authorize/request.js';
import { browserBinding } from './browser-binding.js';
import { type InteractionRecord, interactionKey, MAX_PENDING_BYTES, utf8Length } from './record.js';
import type { InteractionStep } from './types.js';

/**
 * Where an interaction's step is handled: the host's page (`interactions.url`), else the built-in
 * login or consent page, which are interaction handlers like a host's page (`built-in-pages.ts`).
 */
export function interactionPage(
  ctx: Pick<Context, 'site'>,
  flow: AuthorizationFlow,
  step: InteractionStep,
): URL {
  return (
    flow.interactions.url ??
    new URL(
      `${ctx.site.basePath}${step === 'login' ? PAGE_PATHS.login : PAGE_PATHS.consent}`,
      ctx.site.origin,
    )
  );
}

/**
 * Hands a validated authorization request that needs the user to the host: stores the interaction
 * (a new 256-bit reference, bound to this browser, for `interactions.ttl`) and sends the browser to
 * the step's page ({@link interactionPage}) with `?interaction=<reference>` (303). `subject` binds it to a user (the signed-in
 * one for consent, the `id_token_hint`'s for a login). Never reached with `prompt=none`
 * (`nextInteraction` refuses first). A request whose parameters exceed the stored bound is
 * `invalid_request`, stored nowhere.
 */
export async function startInteraction(
  ctx: Pick<Context, 'site' | 'clock' | 'randomBytes' | 'emit' | 'storage' | 'limits'>,
  flow: AuthorizationFlow,
  request: Request,
  auth: AuthorizationRequest,
  step: InteractionStep,
  subject: string | undefined,
): Promise<Answer> {
  const { id_token_hint: _hint, ...params } = auth.parameters; // checked already; the subject stands for it
  return storeInteraction(ctx, flow, request, {
    step,
    params,
    clientId: auth.client.id,
    ...(subject === undefined ? {} : { subject }),
  });
}

/**
 * The sign-in of the device verification page (RFC 8628 §3.3) for a live user code of `clientId`,
 * or, without `clientId`, for a typed code not looked up yet (anonymous lookups were limited: the
 * user signs in first): an interaction like an authorization request's login, handled by the same
 * page (the host's or the built-in one); the resume then goes on to the page's confirmation, which
 * looks the code up.
 */
export function startDeviceInteraction(
  ctx: Pick<Context, 'site' | 'clock' | 'randomBytes' | 'emit' | 'storage' | 'limits'>,
  flow: AuthorizationFlow,
  request: Request,
  userCode: string,
  clientId: string | undefined,
): Promise<Answer> {
  return storeInteraction(ctx, flow, request, {
    step: 'login',
    flow: 'device',
    params: { user_code: userCode },
    ...(clientId === undefined ? { clientId: '', unchecked: true } : { clientId }),
  });
}

/**
 * The sign-in of the connected apps page (`{base}/account/apps`) for a browser without a session:
 * a login interaction handled by the same page as any sign-in (the host's or the built-in one),
 * for no client; the resume then goes back to the page, signed in.
 */
export function startAccountInteraction(
  ctx: Pick<Context, 'site' | 'clock' | 'randomBytes' | 'emit' | 'storage' | 'limits'>,
  flow: AuthorizationFlow,
  request: Request,
): Promise<Answer> {
  return storeInteraction(ctx, flow, request, { step: 'login', flow: 'account', params: {}, clientId: '' });
}

/**
 * The sign-in of the approval page of backchannel authentication (CIBA, `{base}/approvals`): a
 * login interaction like the device page's before a code is looked up (for no client), handled by
 * the same page; the resume then goes back to the approval page (`params.next`).
 */
export function startApprovalsInteraction(
  ctx: Pick<Context, 'site' | 'clock' | 'randomBytes' | 'emit' | 'storage' | 'limits'>,
  flow: AuthorizationFlow,
  request: Request,
): Promise<Answer> {
  return storeInteraction(ctx, flow, request, {
    step: 'login',
    flow: 'device',
    params: { next: 'approvals' },
    clientId: '',
    unchecked: true,
  });
}

async function storeInteraction(
  ctx: Pick<Context, 'site' | 'clock' | 'randomBytes' | 'emit' | 'storage' | 'limits'>,
  flow: AuthorizationFlow,
  request: Request,
  what: Pick<InteractionRecord, 'step' | 'flow' | 'unchecked' | 'params' | 'clientId' | 'subject'>,
): Promise<Answer> {
  const reference = randomSecret(ctx.randomBytes);
  const binding = await browserBinding(ctx, flow, request);
  const now = ctx.clock.now();
  const record: InteractionRecord = {
    v: 1,
    ...what,
    binding: binding.hash,
    createdAt: now,
    expiresAt: addSeconds(now, flow.interactions.ttl),
  };
  const value = JSON.stringify(record);
  if (utf8Length(value) > MAX_PENDING_BYTES)
    throw invalidRequest('The authorization request is too large to be continued after sign-in.');
  const payer = await chargeInteraction(ctx, flow, request);
  // Pending, the record is charged to the network that started it: a full memory store evicts the
  // heaviest network's oldest pending interactions first. `finish` rewrites it without a partition.
  await ctx.storage.kv.add(await interactionKey(reference), value, record.expiresAt, now, payer.write);
  const location = interactionPage(ctx, flow, what.step);
  location.searchParams.set('interaction', reference);
  const headers = new Headers({ Location: location.href, 'Referrer-Policy': 'same-origin' });
  if (binding.setCookie) headers.append('Set-Cookie', binding.setCookie);
  ctx.emit({ type: 'interaction.started', clientId: what.clientId, step: what.step });
  return noStoreEmpty(303, headers);
}

/**
 * Charges one stored interaction to the caller's network (`chargeClientNetwork`: its address and
 * its /24 or /48): an authorization request needing the user is unauthenticated and stores a
 * record for `interactions.ttl`, so `maxPerNetwork` per `ttl` per address (eight times as many per
 * aggregate) bounds what one network can make the server keep (docs/security.md). Charged after
 * every check passed, so refused requests cost nothing.
 */
function chargeInteraction(
  ctx: Pick<Context, 'clock' | 'emit' | 'storage' | 'limits'>,
  flow: AuthorizationFlow,
  request: Request,
): Promise<Payer> {
  return chargeClientNetwork(ctx, request, {
    name: 'interaction',
    max: flow.interactions.maxPerNetwork,
    windowSeconds: flow.interactions.ttl,
    description: 'Too many sign-ins were started from this network; try again later.',
  });
}
