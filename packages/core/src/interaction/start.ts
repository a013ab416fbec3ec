import type { Context } from '../context.js';
import { invalidRequest } from '../errors.js';
import type { Answer } from '../http/reply.js';
import { noStoreEmpty } from '../http/responses.js';
import type { AuthorizationRequest } from '../oauth2/authorize/request.js';
import { addSeconds } from '../time.js';
import { randomSecret } from '../tokens/secrets.js';
import { browserBinding } from './browser-binding.js';
import { type InteractionRecord, interactionKey, MAX_PENDING_BYTES } from './record.js';
import type { InteractionStep } from './types.js';

/**
 * Hands a validated authorization request that needs the user to the host: stores the interaction
 * (a new 256-bit reference, bound to this browser, for `interactions.ttl`) and sends the browser to
 * the host's page with `?interaction=<reference>` (303). `subject` binds it to a user (the signed-in
 * one for consent, the `id_token_hint`'s for a login). Never reached with `prompt=none`
 * (`nextInteraction` refuses first). A request whose parameters exceed the stored bound is
 * `invalid_request`, stored nowhere.
 */
export async function startInteraction(
  ctx: Context,
  request: Request,
  auth: AuthorizationRequest,
  step: InteractionStep,
  subject: string | undefined,
  target: URL,
): Promise<Answer> {
  const reference = randomSecret(ctx.randomBytes);
  const binding = await browserBinding(ctx, request);
  const now = ctx.now();
  const { id_token_hint: _hint, ...params } = auth.parameters; // checked already; the subject stands for it
  const record: InteractionRecord = {
    v: 1,
    step,
    params,
    clientId: auth.client.id,
    ...(subject === undefined ? {} : { subject }),
    binding: binding.hash,
    createdAt: now,
    expiresAt: addSeconds(now, ctx.interactions.ttl),
  };
  const value = JSON.stringify(record);
  if (value.length > MAX_PENDING_BYTES)
    throw invalidRequest('The authorization request is too large to be continued after sign-in.');
  await ctx.storage.kv.add(await interactionKey(reference), value, record.expiresAt, now);
  const location = new URL(target);
  location.searchParams.set('interaction', reference);
  const headers = new Headers({ Location: location.href, 'Referrer-Policy': 'same-origin' });
  if (binding.setCookie) headers.append('Set-Cookie', binding.setCookie);
  ctx.emit({ type: 'interaction.started', clientId: auth.client.id, step });
  return noStoreEmpty(303, headers);
}
