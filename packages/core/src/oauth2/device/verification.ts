import type { Context } from '../../context.js';
import { ProtocolError } from '../../errors.js';
import { type Params, queryParams, readForm } from '../../http/form.js';
import { isForeignBrowserRequest } from '../../http/origin.js';
import type { Answer } from '../../http/reply.js';
import type { Handler } from '../../http/router.js';
import {
  checkFormPost,
  crossSiteRefused,
  formExpired,
  hasValidCsrfToken,
  pageCsrfToken,
} from '../../session/csrf.js';
import {
  type DeviceCodePageModel,
  deviceCodePage,
  deviceConfirmPage,
  deviceDonePage,
} from '../../ui/device-pages.js';
import { errorPage } from '../../ui/pages.js';
import { PAGE_PATHS } from '../../ui/paths.js';
import { type Authentication, currentAuthentication } from '../authorize/authentication.js';
import type { AuthorizationFlow } from '../authorize/flow.js';
import { startDeviceInteraction } from '../interaction/start.js';
import { parseScope } from '../scope.js';
import {
  type DeviceRecord,
  deviceKey,
  findUserCode,
  readDeviceRecord,
  recordKeptUntil,
  userCodeKey,
} from './device-records.js';
import { guessLimiter } from './guess-limit.js';
import type { DeviceAuthorizationSettings } from './settings.js';
import { formatUserCode, MAX_USER_CODE_INPUT, normalizeUserCode } from './user-code.js';

/*
 * The verification page (RFC 8628 §3.3) at `verification_uri` = `{issuer}/device`:
 *
 *   GET  /device[?user_code=…]   the code form (prefilled from `verification_uri_complete`)
 *   POST /device                 the typed code → a sign-in interaction (nobody signed in: the
 *                                host's page or the built-in login page) or the confirmation
 *   GET  /device/confirm?user_code=…   after the sign-in (the resume comes here): the confirmation
 *   POST /device/confirm         Allow / Deny → the result page, without a form
 *
 * Every form is CSRF-protected as the consent page is (origin check and double-submitted token,
 * `session/csrf.ts`). Every lookup of a typed code is guess-limited (`guess-limit.ts`); a wrong,
 * expired or already decided code shows the code form again with 400 and changes nothing. The user
 * always confirms (even for a first-party client, even arriving with the code in the link: §5.4,
 * remote phishing) and is told to compare the code with the one on the device.
 */

/**
 * A page handler whose refusals (a repeated parameter, an unreadable body) are HTML error pages,
 * as everywhere a browser is the caller, never JSON.
 */
function asPage(handler: Handler): Handler {
  return async (request, ctx, url) => {
    try {
      return await handler(request, ctx, url);
    } catch (error) {
      if (error instanceof ProtocolError && error.status < 500)
        return errorPage(ctx, error, undefined, request);
      throw error;
    }
  };
}

const WRONG_CODE = 'deviceCodeInvalid';
const MALFORMED_CODE = 'deviceCodeMalformed';

/** The code form, with a CSRF token (a new cookie when the browser has none). */
function codeForm(
  ctx: Pick<Context, 'site' | 'randomBytes' | 'ui' | 'session'>,
  request: Request,
  options: {
    userCode?: string;
    error?: DeviceCodePageModel['error'];
    status?: number;
    headers?: HeadersInit;
  } = {},
): Answer {
  const csrf = pageCsrfToken(ctx, request);
  const headers = new Headers(options.headers);
  if (csrf.setCookie) headers.append('Set-Cookie', csrf.setCookie);
  return deviceCodePage(
    ctx,
    request,
    {
      action: ctx.site.basePath + PAGE_PATHS.device,
      csrfToken: csrf.token,
      ...(options.userCode === undefined ? {} : { userCode: options.userCode }),
      ...(options.error === undefined ? {} : { error: options.error }),
    },
    { status: options.status ?? 200, headers },
  );
}

/** What a typed code, as typed, may be shown back as: bounded, and normalised when it is a code. */
function shownInput(input: string): string {
  const code = normalizeUserCode(input);
  return code === undefined ? input.slice(0, MAX_USER_CODE_INPUT) : formatUserCode(code);
}

/** A live, undecided authorization found by its user code. */
interface FoundCode {
  readonly deviceCodeHash: string;
  readonly text: string;
  readonly record: DeviceRecord;
}

/**
 * Looks up a normalised user code, guess-limited, for the signed-in user `userId` or anonymously:
 * a live, pending authorization, `null`, or `sign-in-first` (an anonymous lookup over its limits:
 * nothing looked up). Throws 429 `too_many_requests` when a signed-in user is over their share.
 */
async function lookUpUserCode(
  ctx: Pick<Context, 'clock' | 'emit' | 'storage' | 'limits'>,
  settings: DeviceAuthorizationSettings,
  request: Request,
  userCode: string,
  userId: string | undefined,
): Promise<FoundCode | null | 'sign-in-first'> {
  const limiter = guessLimiter(ctx, settings, request, userId);
  if ((await limiter.reserve()) === 'sign-in-first') return 'sign-in-first';
  const now = ctx.clock.now();
  const deviceCodeHash = await findUserCode(ctx, userCode, now);
  const found = deviceCodeHash === null ? null : await readDeviceRecord(ctx, deviceCodeHash, now);
  if (
    deviceCodeHash === null ||
    found === null ||
    found.record.status !== 'pending' ||
    found.record.userCode !== userCode ||
    now >= found.record.expiresAt
  ) {
    await limiter.missed();
    return null;
  }
  return { deviceCodeHash, ...found };
}

/**
 * Runs `step` with the authorization a posted or linked code names, or answers the code form again:
 * 400 for a malformed or wrong code, 429 when a signed-in user's guessing is limited. Nobody signed
 * in and anonymous lookups limited: the sign-in comes first, and the code is looked up after it.
 */
async function withUserCode(
  ctx: Pick<Context, 'site' | 'clock' | 'randomBytes' | 'emit' | 'storage' | 'limits' | 'ui' | 'session'>,
  flow: AuthorizationFlow,
  settings: DeviceAuthorizationSettings,
  request: Request,
  params: Params,
  current: Authentication | null,
  step: (found: FoundCode) => Promise<Answer>,
): Promise<Answer> {
  const input = params.get('user_code') ?? '';
  const userCode = normalizeUserCode(input);
  if (userCode === undefined) {
    return codeForm(ctx, request, { userCode: shownInput(input), error: MALFORMED_CODE, status: 400 });
  }
  let found: FoundCode | null | 'sign-in-first';
  try {
    found = await lookUpUserCode(ctx, settings, request, userCode, current?.userId);
  } catch (error) {
    if (!(error instanceof ProtocolError) || error.code !== 'too_many_requests') throw error;
    return codeForm(ctx, request, {
      userCode: formatUserCode(userCode),
      error: { message: error.description },
      status: error.status,
      headers: error.headers,
    });
  }
  if (found === 'sign-in-first')
    return startDeviceInteraction(ctx, flow, request, formatUserCode(userCode), undefined);
  if (found === null) {
    return codeForm(ctx, request, { userCode: formatUserCode(userCode), error: WRONG_CODE, status: 400 });
  }
  return step(found);
}

/**
 * The sign-in step of the flow: a login interaction for the code (`startDeviceInteraction`), handled
 * by the host's page (`interactions.url`) or the built-in login page like any sign-in; the resume
 * then comes back to the confirmation. The one place the device flow asks who the user is.
 */
function deviceSignIn(
  ctx: Pick<Context, 'site' | 'clock' | 'randomBytes' | 'emit' | 'storage' | 'limits'>,
  flow: AuthorizationFlow,
  request: Request,
  found: FoundCode,
): Promise<Answer> {
  return startDeviceInteraction(
    ctx,
    flow,
    request,
    formatUserCode(found.record.userCode),
    found.record.clientId,
  );
}

async function clientName(ctx: Pick<Context, 'clients'>, clientId: string): Promise<string> {
  const client = await ctx.clients.findClient(clientId);
  return client?.name ?? clientId;
}

/** The confirmation page for a signed-in user and a live code. */
async function confirmation(
  ctx: Pick<Context, 'site' | 'randomBytes' | 'clients' | 'ui' | 'session'>,
  request: Request,
  current: Authentication,
  found: FoundCode,
): Promise<Answer> {
  const csrf = pageCsrfToken(ctx, request);
  const scopes = parseScope(found.record.scope);
  return deviceConfirmPage(
    ctx,
    request,
    {
      action: ctx.site.basePath + PAGE_PATHS.deviceConfirm,
      csrfToken: csrf.token,
      userCode: formatUserCode(found.record.userCode),
      clientName: await clientName(ctx, found.record.clientId),
      scopes,
      scopeDescriptions: Object.fromEntries(
        scopes
          .filter((scope) => Object.hasOwn(ctx.ui.scopeDescriptions, scope))
          .map((scope) => [scope, ctx.ui.scopeDescriptions[scope]!]),
      ),
      ...(found.record.resources && found.record.resources.length > 0
        ? { resources: found.record.resources }
        : {}),
      ...(current.username === undefined ? {} : { username: current.username }),
    },
    { headers: csrf.setCookie ? { 'Set-Cookie': csrf.setCookie } : {} },
  );
}

/** `GET {base}/device`: the code form, prefilled from `?user_code=` (`verification_uri_complete`). */
export const deviceVerificationPage: Handler = asPage(
  async (request, ctx: Pick<Context, 'site' | 'randomBytes' | 'ui' | 'session'>, url) => {
    let input: string | undefined;
    try {
      input = queryParams(url).get('user_code');
    } catch {
      input = undefined; // repeated: nothing to prefill
    }
    return codeForm(ctx, request, input === undefined ? {} : { userCode: shownInput(input) });
  },
);

/** `POST {base}/device`: the typed code → the login page, or the confirmation when signed in. */
export const deviceCodeEntry = (settings: DeviceAuthorizationSettings, flow: AuthorizationFlow): Handler =>
  asPage(
    async (
      request,
      ctx: Pick<
        Context,
        | 'issuer'
        | 'site'
        | 'clock'
        | 'randomBytes'
        | 'emit'
        | 'logger'
        | 'storage'
        | 'clients'
        | 'users'
        | 'limits'
        | 'ui'
        | 'session'
      >,
    ) => {
      if (isForeignBrowserRequest(ctx, request))
        return errorPage(ctx, crossSiteRefused(ctx, request), undefined, request);
      const params = await readForm(request, ctx.limits.maxBodyBytes);
      if (!(await hasValidCsrfToken(ctx, request, params))) {
        const expired = formExpired();
        return codeForm(ctx, request, { error: 'loginFormExpired', status: expired.status });
      }
      const current = await currentAuthentication(ctx, flow, request);
      return withUserCode(ctx, flow, settings, request, params, current, (found) =>
        current ? confirmation(ctx, request, current, found) : deviceSignIn(ctx, flow, request, found),
      );
    },
  );

/** `GET {base}/device/confirm?user_code=…`: the confirmation (the login page without a session). */
export const deviceConfirmPageEndpoint = (
  settings: DeviceAuthorizationSettings,
  flow: AuthorizationFlow,
): Handler =>
  asPage(
    async (
      request,
      ctx: Pick<
        Context,
        | 'site'
        | 'clock'
        | 'randomBytes'
        | 'emit'
        | 'logger'
        | 'storage'
        | 'clients'
        | 'users'
        | 'limits'
        | 'ui'
        | 'session'
      >,
      url,
    ) => {
      let params: Params;
      try {
        params = queryParams(url);
        params.get('user_code');
      } catch {
        return codeForm(ctx, request, { error: MALFORMED_CODE, status: 400 });
      }
      const current = await currentAuthentication(ctx, flow, request);
      return withUserCode(ctx, flow, settings, request, params, current, (found) =>
        current ? confirmation(ctx, request, current, found) : deviceSignIn(ctx, flow, request, found),
      );
    },
  );

/**
 * `POST {base}/device/confirm`: the user's decision. The pending record becomes approved (with the
 * user and the authentication behind the session) or denied by compare-and-set, so of two
 * decisions racing exactly one counts; the user code is then forgotten. The answer is the result
 * page, without a form.
 */
export const deviceDecisionEndpoint = (
  settings: DeviceAuthorizationSettings,
  flow: AuthorizationFlow,
): Handler =>
  asPage(
    async (
      request,
      ctx: Pick<
        Context,
        | 'issuer'
        | 'site'
        | 'clock'
        | 'randomBytes'
        | 'emit'
        | 'logger'
        | 'storage'
        | 'users'
        | 'limits'
        | 'ui'
        | 'session'
      >,
    ) => {
      const params = await readForm(request, ctx.limits.maxBodyBytes);
      try {
        await checkFormPost(ctx, request, params);
      } catch (error) {
        if (error instanceof ProtocolError) return errorPage(ctx, error, undefined, request);
        throw error;
      }
      const decision = params.get('decision');
      if (decision !== 'allow' && decision !== 'deny') {
        return codeForm(ctx, request, { error: 'deviceChooseDecision', status: 400 });
      }
      const current = await currentAuthentication(ctx, flow, request);
      return withUserCode(ctx, flow, settings, request, params, current, async (found) => {
        if (!current) return deviceSignIn(ctx, flow, request, found);
        const decided: DeviceRecord =
          decision === 'allow'
            ? {
                ...found.record,
                status: 'approved',
                userId: current.userId,
                approvedAt: ctx.clock.now(),
                authTime: current.authTime,
                ...(current.sessionId === undefined ? {} : { sessionId: current.sessionId }),
                ...(current.acr === undefined ? {} : { acr: current.acr }),
                ...(current.amr === undefined ? {} : { amr: current.amr }),
              }
            : { ...found.record, status: 'denied' };
        const now = ctx.clock.now();
        const won = await ctx.storage.kv.swap(
          deviceKey(found.deviceCodeHash),
          found.text,
          JSON.stringify(decided),
          recordKeptUntil(found.record),
          now,
        );
        if (!won) {
          return codeForm(ctx, request, { error: WRONG_CODE, status: 400 });
        }
        await ctx.storage.kv.delete(userCodeKey(found.record.userCode));
        ctx.emit({
          type: decision === 'allow' ? 'device.approved' : 'device.denied',
          clientId: found.record.clientId,
          userId: current.userId,
        });
        return deviceDonePage(ctx, request, decision === 'allow');
      });
    },
  );
