import type { Context } from '../../context.js';
import { ProtocolError } from '../../errors.js';
import { Params } from '../../http/form.js';
import { toResponse } from '../../http/reply.js';
import { noStoreEmpty } from '../../http/responses.js';
import type { ClientRecord } from '../../storage/types.js';
import { resolveLocale } from '../../ui/locale.js';
import { DEFAULT_LOCALE } from '../../ui/messages.js';
import type { AuthorizationFlow } from '../authorize/flow.js';
import type { AuthorizationRequest } from '../authorize/request.js';
import { authorizationTarget, validatedRequest } from '../authorize/response.js';
import { type DeviceRecord, findUserCode, readDeviceRecord } from '../device/device-records.js';
import { normalizeUserCode } from '../device/user-code.js';
import { parseScope } from '../scope.js';
import { isSameBrowser } from './browser-binding.js';
import { checkHostUser } from './host-user.js';
import { InteractionError } from './interaction-error.js';
import { INTERACTION_PATHS } from './paths.js';
import {
  findInteraction,
  type InteractionRecord,
  MAX_RECORD_BYTES,
  type StoredResult,
  utf8Length,
} from './record.js';
import type { InteractionDetails, InteractionRedirect, InteractionResult } from './types.js';

/** The reference a host's request carries: `id` when given, else its `interaction` query parameter. */
function referenceOf(request: Request, id: string | undefined): string {
  if (id !== undefined) return id;
  try {
    return new URL(request.url).searchParams.get('interaction') ?? '';
  } catch {
    return '';
  }
}

/** A refusal, reported to the `onEvent` callback and thrown to the host. */
function refuse(ctx: Pick<Context, 'emit'>, error: InteractionError): never {
  ctx.emit({ type: 'interaction.refused', reason: error.code });
  throw error;
}

/**
 * The live, unfinished interaction of a reference, checked against the browser of `request` when
 * one is given; throws {@link InteractionError} otherwise.
 */
export async function pendingInteraction(
  ctx: Pick<Context, 'clock' | 'emit' | 'storage'>,
  flow: AuthorizationFlow,
  reference: string,
  request: Request | undefined,
) {
  const found = await findInteraction(ctx, reference);
  if (found === null)
    refuse(
      ctx,
      new InteractionError(
        'interaction_not_found',
        'This sign-in request has expired or was already used. Go back to the application and start again.',
      ),
    );
  if (request !== undefined && !(await isSameBrowser(flow, request, found.record.binding)))
    refuse(
      ctx,
      new InteractionError(
        'interaction_wrong_browser',
        'This sign-in request was started in another browser. Go back to the application and start again.',
      ),
    );
  if (found.record.result !== undefined)
    refuse(ctx, new InteractionError('interaction_finished', 'This sign-in request is already complete.'));
  return found;
}

/**
 * The authorization request an interaction carries, validated again (the client may have changed
 * since): a request that is no longer valid cannot be continued.
 */
export async function storedRequest(
  ctx: Pick<Context, 'clock' | 'randomBytes' | 'emit' | 'storage' | 'clients' | 'keys' | 'tokens'>,
  flow: AuthorizationFlow,
  record: InteractionRecord,
): Promise<AuthorizationRequest> {
  const params = new Params(new URLSearchParams(record.params));
  try {
    const { target, pushed } = await authorizationTarget(ctx, params);
    return validatedRequest(ctx, flow, target, params, pushed);
  } catch (error) {
    if (!(error instanceof ProtocolError) || error.status >= 500) throw error;
    refuse(
      ctx,
      new InteractionError(
        'interaction_not_found',
        `The request can no longer be continued: ${error.description}`,
      ),
    );
  }
}

/** What a device sign-in is for: the live, undecided device authorization and its client. */
export interface StoredDevice {
  /** Both absent for a sign-in before the code was looked up (`InteractionRecord.unchecked`). */
  readonly device?: DeviceRecord;
  readonly client?: ClientRecord;
}

/**
 * The device authorization a device sign-in interaction is for (by the user code it stored, so no
 * guess limit: the reference is the secret), still pending: one decided or expired meanwhile
 * cannot be signed in for.
 */
export async function storedDevice(
  ctx: Pick<Context, 'clock' | 'emit' | 'storage' | 'clients'>,
  record: InteractionRecord,
): Promise<StoredDevice> {
  // Not looked up here, which would be a lookup without the guess limit: after the sign-in.
  if (record.unchecked) return {};
  const userCode = normalizeUserCode(record.params.user_code ?? '');
  const now = ctx.clock.now();
  const hash = userCode === undefined ? null : await findUserCode(ctx, userCode, now);
  const found = hash === null ? null : await readDeviceRecord(ctx, hash, now);
  const client = found === null ? null : await ctx.clients.findClient(found.record.clientId);
  if (
    found === null ||
    client === null ||
    found.record.status !== 'pending' ||
    found.record.userCode !== userCode ||
    found.record.clientId !== record.clientId ||
    now >= found.record.expiresAt
  )
    refuse(
      ctx,
      new InteractionError(
        'interaction_not_found',
        'The device code has expired or was already used. Start again on the device.',
      ),
    );
  return { device: found.record, client };
}

/** `gatehouse.interactions.details`. */
export async function interactionDetails(
  ctx: Pick<
    Context,
    'issuer' | 'clock' | 'randomBytes' | 'emit' | 'storage' | 'clients' | 'keys' | 'tokens' | 'ui'
  >,
  flow: AuthorizationFlow,
  requestOrId: Request | string,
  id?: string,
): Promise<InteractionDetails> {
  const request = typeof requestOrId === 'string' ? undefined : requestOrId;
  const reference = typeof requestOrId === 'string' ? requestOrId : referenceOf(requestOrId, id);
  const { record } = await pendingInteraction(ctx, flow, reference, request);
  if (record.flow === 'device') {
    const { device, client } = await storedDevice(ctx, record);
    return {
      id: reference,
      step: record.step,
      flow: 'device',
      // Before the code was looked up, the sign-in is for the verification page itself.
      client: client
        ? { id: client.id, name: client.name ?? client.id, firstParty: client.firstParty === true }
        : { id: ctx.issuer, name: new URL(ctx.issuer).host, firstParty: true },
      redirectHost: new URL(ctx.issuer).host,
      scopes: device ? parseScope(device.scope) : [],
      resources: device?.resources ?? [],
      prompt: [],
      uiLocales: [],
      acrValues: [],
      authorizationDetails: [],
      expiresAt: record.expiresAt,
    };
  }
  const auth = await storedRequest(ctx, flow, record);
  const { oidc } = auth;
  return {
    id: reference,
    step: record.step,
    flow: 'authorize',
    client: {
      id: auth.client.id,
      name: auth.client.name ?? auth.client.id,
      firstParty: auth.client.firstParty === true,
    },
    redirectHost: new URL(auth.redirectUri).host,
    scopes: parseScope(auth.scope),
    resources: auth.resources ?? [],
    prompt: [...oidc.prompt],
    ...(oidc.maxAge === undefined ? {} : { maxAge: oidc.maxAge }),
    ...(oidc.loginHint === undefined ? {} : { loginHint: oidc.loginHint }),
    uiLocales: oidc.uiLocales,
    acrValues: oidc.acrValues,
    // RFC 9396: the details asked for, in their types' words in the language the built-in pages
    // would use (`ui_locales`, then the browser's), so a host's page shows what the built-in one does.
    authorizationDetails:
      auth.authorizationDetails && flow.authorizationDetails
        ? flow.authorizationDetails.describe(
            auth.authorizationDetails,
            resolveLocale(
              ctx.ui.locales,
              DEFAULT_LOCALE,
              oidc.uiLocales,
              request?.headers.get('accept-language') ?? null,
            ),
          )
        : [],
    ...(record.subject === undefined ? {} : { subject: record.subject }),
    expiresAt: record.expiresAt,
  };
}

/**
 * `gatehouse.interactions.finish`. `via` marks a sign-in made on the built-in login page, for the
 * `login.succeeded` event the resume emits.
 */
export async function finishInteraction(
  ctx: Pick<Context, 'issuer' | 'clock' | 'randomBytes' | 'emit' | 'storage' | 'clients' | 'keys' | 'tokens'>,
  flow: AuthorizationFlow,
  request: Request,
  result: InteractionResult,
  id?: string,
  via?: 'login-page',
): Promise<InteractionRedirect> {
  const reference = referenceOf(request, id);
  const { record, stored, key } = await pendingInteraction(ctx, flow, reference, request);
  const asked: Asked =
    record.flow === 'device'
      ? { prompt: new Set(), device: true, ...scopeOf(await storedDevice(ctx, record)) }
      : askedBy(await storedRequest(ctx, flow, record));
  const checked = checkResult(ctx, record, asked, result);
  const storedResult = via === undefined ? checked : { ...checked, via };
  const finished = JSON.stringify({ ...record, result: storedResult } satisfies InteractionRecord);
  if (utf8Length(finished) > MAX_RECORD_BYTES)
    refuse(ctx, new InteractionError('interaction_invalid_result', 'The result is too large.'));
  // Compare-and-set: of two concurrent finishes of one interaction, one wins.
  if (!(await ctx.storage.kv.swap(key, stored, finished, record.expiresAt, ctx.clock.now())))
    refuse(ctx, new InteractionError('interaction_finished', 'This sign-in request is already complete.'));
  const location = `${ctx.issuer}${INTERACTION_PATHS.resume}?${new URLSearchParams({ interaction: reference })}`;
  return {
    location,
    response: toResponse(noStoreEmpty(303, { Location: location, 'Referrer-Policy': 'same-origin' })),
  };
}

/** What an interaction asks, as far as checking a result goes. */
interface Asked {
  readonly prompt: ReadonlySet<string>;
  readonly maxAge?: number;
  readonly scope: string;
  readonly resources?: readonly string[];
  /** A device sign-in: the user confirms on the verification page, so a result has no consent. */
  readonly device?: true;
}

function askedBy(auth: AuthorizationRequest): Asked {
  return {
    prompt: auth.oidc.prompt,
    ...(auth.oidc.maxAge === undefined ? {} : { maxAge: auth.oidc.maxAge }),
    scope: auth.scope,
    ...(auth.resources === undefined ? {} : { resources: auth.resources }),
  };
}

function scopeOf({ device }: StoredDevice): Pick<Asked, 'scope' | 'resources'> {
  if (device === undefined) return { scope: '' };
  return { scope: device.scope, ...(device.resources === undefined ? {} : { resources: device.resources }) };
}

/**
 * Checks a host's result against what the interaction asked: a sign-in for a `login` step (fresh
 * enough for `prompt=login` and `max_age`), the bound user for a `consent` step, a consent naming only
 * scopes and resources that were asked for. Throws {@link InteractionError} `interaction_…`.
 */
function checkResult(
  ctx: Pick<Context, 'clock' | 'emit'>,
  record: InteractionRecord,
  auth: Asked,
  result: InteractionResult,
): StoredResult {
  const invalid: (message: string) => never = (message) =>
    refuse(ctx, new InteractionError('interaction_invalid_result', message));
  if (typeof result !== 'object' || result === null) invalid('The result must be an object.');
  const now = ctx.clock.now();
  let login: StoredResult['login'];
  if (result.login !== undefined) {
    const checked = checkHostUser(result.login, now, ctx.clock.toleranceSeconds);
    if (!checked.ok) invalid(`The sign-in result is malformed: ${checked.problem}.`);
    login = { ...checked.user, authTime: checked.user.authTime ?? now };
  }
  if (record.step === 'login') {
    if (login === undefined) invalid('A login interaction needs a sign-in result (login).');
    // OpenID Connect Core §3.1.2.1: prompt=login asks for a sign-in now, max_age for a recent one.
    const startedAt = Math.floor(record.createdAt / 1000) * 1000;
    const stale =
      (auth.prompt.has('login') && login.authTime < startedAt) ||
      (auth.maxAge !== undefined && now - login.authTime > auth.maxAge * 1000 && login.authTime < startedAt);
    if (stale)
      refuse(
        ctx,
        new InteractionError(
          'interaction_stale_login',
          'The client asked for a new sign-in (prompt=login or max_age): sign the user in again.',
        ),
      );
  } else if (login !== undefined && login.sub !== record.subject) {
    refuse(ctx, new InteractionError('interaction_wrong_user', 'This request is for another user.'));
  }
  let consent: StoredResult['consent'];
  if (result.consent !== undefined && auth.device)
    invalid('A device sign-in takes no consent: the user confirms the device on the verification page.');
  if (result.consent !== undefined) {
    const given = result.consent;
    if (typeof given !== 'object' || given === null) invalid('The consent result must be an object.');
    if ('denied' in given && given.denied === true) {
      const description = given.description;
      if (description !== undefined && (typeof description !== 'string' || description.length > 256))
        invalid('The consent description must be a string of at most 256 characters.');
      consent = { denied: true, ...(description === undefined ? {} : { description }) };
    } else {
      const granted = given as {
        scopes?: readonly string[];
        resources?: readonly string[];
        remember?: boolean;
      };
      const asked = parseScope(auth.scope);
      const scopes = granted.scopes ?? asked;
      if (!Array.isArray(scopes) || !scopes.every((s) => typeof s === 'string' && asked.includes(s)))
        invalid('The consent names a scope that was not asked for.');
      const askedResources = auth.resources ?? [];
      const resources = granted.resources ?? askedResources;
      if (
        !Array.isArray(resources) ||
        !resources.every((r) => typeof r === 'string' && askedResources.includes(r))
      )
        invalid('The consent names a resource that was not asked for.');
      consent = {
        scope: [...new Set(scopes)].join(' '),
        ...(auth.resources === undefined ? {} : { resources: [...new Set(resources)] }),
        remember: granted.remember !== false,
      };
    }
  } else if (record.step === 'consent') {
    invalid('A consent interaction needs a consent result (consent).');
  }
  return { ...(login === undefined ? {} : { login }), ...(consent === undefined ? {} : { consent }) };
}
