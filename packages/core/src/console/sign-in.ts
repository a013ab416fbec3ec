import { parse, serialize } from 'cookie';
import type { Context } from '../context.js';
import { sha256Base64url } from '../crypto/sha256.js';
import { oauthError } from '../errors.js';
import type { InstanceAnswer } from '../feature.js';
import { queryParams } from '../http/form.js';
import { type Answer, toResponse } from '../http/reply.js';
import { noStoreEmpty } from '../http/responses.js';
import { ENDPOINTS } from '../oauth2/metadata.js';
import { randomSecret, timingSafeEqual } from '../tokens/secrets.js';
import { CONSOLE_CLIENT_ID, CONSOLE_PATHS, type ConsoleSettings } from './settings.js';

/*
 * The console signs its users in through the instance itself, as any client would: the
 * authorization code flow with PKCE S256 (RFC 6749 §4.1, RFC 7636) of its own client
 * (`internal-client.ts`), so the user signs in on the instance's login page (or is already signed
 * in) and the host's `admin.authorize` hook decides, at every admin API call, whether that user may
 * administer. The browser keeps two HttpOnly, SameSite=Lax cookies scoped to `{base}/admin`:
 * during the sign-in the `state` and the PKCE verifier (ten minutes), then the access token alone,
 * for its lifetime. Nothing is stored on the server.
 */

const TOKEN_SHAPE = /^[A-Za-z0-9_-]{43}$/;
/** Longest access token the console keeps in its cookie (a JWT of the instance: well under). */
const MAX_TOKEN_LENGTH = 3500;
const SIGN_IN_SECONDS = 600;

type Site = Pick<Context, 'site' | 'session'>;

function cookieNames(ctx: Site) {
  return { token: `${ctx.session.cookieName}_console`, login: `${ctx.session.cookieName}_console_login` };
}

function consoleCookie(ctx: Site, name: string, value: string, maxAge: number): string {
  return serialize(name, value, {
    httpOnly: true,
    sameSite: 'lax',
    secure: ctx.site.secure,
    path: `${ctx.site.basePath}/admin`,
    maxAge,
  });
}

function cookie(request: Request, name: string): string | undefined {
  const header = request.headers.get('cookie');
  return header ? parse(header)[name] : undefined;
}

/** The console's access token of this browser, if it has one. */
export function consoleToken(ctx: Site, request: Request): string | undefined {
  const token = cookie(request, cookieNames(ctx).token);
  return token && token.length <= MAX_TOKEN_LENGTH && /^[\w.~+/=-]+$/.test(token) ? token : undefined;
}

/** `Set-Cookie` values that end the console's sign-in in this browser. */
export function signedOutCookies(ctx: Site): string[] {
  const names = cookieNames(ctx);
  return [consoleCookie(ctx, names.token, '', 0), consoleCookie(ctx, names.login, '', 0)];
}

/**
 * Starts a sign-in: a new `state` and PKCE verifier in the sign-in cookie, and a 303 to the
 * authorization endpoint for the console's client and the admin scope.
 */
export async function startSignIn(
  ctx: Pick<Context, 'issuer' | 'site' | 'session' | 'randomBytes'>,
  settings: ConsoleSettings,
  otherCookies: readonly string[] = [],
): Promise<Answer> {
  const state = randomSecret(ctx.randomBytes);
  const verifier = randomSecret(ctx.randomBytes);
  const authorize = new URL(ctx.issuer + ENDPOINTS.authorization);
  authorize.search = new URLSearchParams({
    response_type: 'code',
    client_id: CONSOLE_CLIENT_ID,
    redirect_uri: settings.redirectUri,
    scope: settings.scope,
    state,
    code_challenge: await sha256Base64url(verifier),
    code_challenge_method: 'S256',
  }).toString();
  const headers = new Headers({ Location: authorize.href, 'Referrer-Policy': 'same-origin' });
  for (const cookie of otherCookies) headers.append('Set-Cookie', cookie);
  headers.append(
    'Set-Cookie',
    consoleCookie(ctx, cookieNames(ctx).login, `${state}.${verifier}`, SIGN_IN_SECONDS),
  );
  return noStoreEmpty(303, headers);
}

/**
 * `GET {base}/admin/callback`: the authorization response (RFC 6749 §4.1.2). Its `state` must be
 * the sign-in cookie's (CSRF, §10.12) and its `iss`, when sent, the instance (RFC 9207); the code
 * is then redeemed in process at the token endpoint with the verifier, and the access token goes
 * into the console's cookie. Anything else is a 4xx `ProtocolError` (shown as an error page).
 */
export async function finishSignIn(
  ctx: Pick<Context, 'issuer' | 'site' | 'session'>,
  settings: ConsoleSettings,
  answer: InstanceAnswer,
  request: Request,
  url: URL,
): Promise<Answer> {
  const params = queryParams(url);
  const [state, verifier] = (cookie(request, cookieNames(ctx).login) ?? '').split('.');
  const returned = params.get('state') ?? '';
  if (
    state === undefined ||
    verifier === undefined ||
    !TOKEN_SHAPE.test(state) ||
    !TOKEN_SHAPE.test(verifier) ||
    !timingSafeEqual(state, returned)
  )
    throw oauthError('invalid_request', 'The sign-in to the console has expired or was started elsewhere.');
  const issuer = params.get('iss');
  if (issuer !== undefined && issuer !== ctx.issuer)
    throw oauthError('invalid_request', 'The authorization response comes from another issuer.');
  const error = params.get('error');
  if (error !== undefined)
    throw oauthError('access_denied', `The sign-in to the console was refused (${error.slice(0, 64)}).`);
  const code = params.get('code');
  if (code === undefined) throw oauthError('invalid_request', 'The authorization response has no code.');
  const response = toResponse(
    await answer(
      new Request(ctx.issuer + ENDPOINTS.token, {
        method: 'POST',
        headers: { 'Content-Type': 'application/x-www-form-urlencoded', Accept: 'application/json' },
        body: new URLSearchParams({
          grant_type: 'authorization_code',
          code,
          redirect_uri: settings.redirectUri,
          client_id: CONSOLE_CLIENT_ID,
          code_verifier: verifier,
        }),
      }),
    ),
  );
  const tokens = (await response.json().catch(() => ({}))) as {
    access_token?: unknown;
    expires_in?: unknown;
  };
  if (
    response.status !== 200 ||
    typeof tokens.access_token !== 'string' ||
    tokens.access_token.length > MAX_TOKEN_LENGTH
  )
    throw oauthError('access_denied', 'The console could not redeem its authorization code.');
  const lifetime = typeof tokens.expires_in === 'number' && tokens.expires_in > 0 ? tokens.expires_in : 300;
  const names = cookieNames(ctx);
  const headers = new Headers({ Location: ctx.site.basePath + CONSOLE_PATHS.home });
  headers.append('Set-Cookie', consoleCookie(ctx, names.token, tokens.access_token, Math.floor(lifetime)));
  headers.append('Set-Cookie', consoleCookie(ctx, names.login, '', 0));
  return noStoreEmpty(303, headers);
}
