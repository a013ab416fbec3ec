/**
 * The authorization code flow as the modules run it, step by step so that each can change one
 * step: build the request, let the user agent play the user's part, read the response at the
 * redirect URI (RFC 6749 §4.1.2, RFC 9207), redeem the code, validate the ID token, call userinfo.
 */
import type { JSONWebKeySet, JWTPayload } from 'jose';
import * as oauth from 'oauth4webapi';
import type { GoOptions, Landing, UserAgent } from './browser.js';
import type { ClientConfig } from './config.js';
import type { HttpAnswer, ModuleContext } from './context.js';
import type { PlanEnv } from './env.js';
import {
  type AuthMethod,
  checkTokenResponse,
  clientAuth,
  endpoint,
  type Metadata,
  validateIdToken,
} from './op.js';
import type { Exchange } from './types.js';

/** The client a module needs from the config; skips the module when the config lacks it. */
export function needClient(
  t: ModuleContext,
  name: 'client' | 'client2' | 'client_secret_post' | 'client_unsigned' | 'fapi_client' | 'fapi_client2',
): ClientConfig & { redirect_uri: string } {
  const client = t.config[name];
  if (!client) return t.skip(`the config has no \`${name}\``);
  if (!client.redirect_uri) return t.skip(`the config's \`${name}\` has no redirect_uri`);
  return client as ClientConfig & { redirect_uri: string };
}

/** An authorization request and what its response must match. */
export interface AuthRequest {
  readonly params: Record<string, string>;
  readonly state?: string;
  readonly nonce?: string;
  readonly verifier?: string;
  readonly redirectUri: string;
}

/** Options of {@link authRequest}. */
export interface AuthRequestOptions {
  readonly scope?: string;
  /** Extra parameters (also overriding the defaults; an empty string value drops the parameter). */
  readonly params?: Record<string, string>;
  /** Send a nonce (default yes). */
  readonly nonce?: boolean;
  /** Send a state (default yes). */
  readonly state?: boolean;
  /** Send PKCE S256 (default no, as the OpenID Foundation's Basic plan). */
  readonly pkce?: boolean;
  /** The redirect URI (default the client's). */
  readonly redirectUri?: string;
  /** Send the parameters in reverse order (order must not matter). */
  readonly reverse?: boolean;
}

/** Builds an authorization request for `client` (OpenID Connect Core §3.1.2.1). */
export async function authRequest(
  client: ClientConfig & { redirect_uri: string },
  options: AuthRequestOptions = {},
): Promise<AuthRequest> {
  const state = options.state === false ? undefined : oauth.generateRandomState();
  const nonce = options.nonce === false ? undefined : oauth.generateRandomNonce();
  const verifier = options.pkce ? oauth.generateRandomCodeVerifier() : undefined;
  const redirectUri = options.redirectUri ?? client.redirect_uri;
  const params: Record<string, string> = {
    response_type: 'code',
    client_id: client.client_id,
    redirect_uri: redirectUri,
    scope: options.scope ?? ['openid', client.scope].filter(Boolean).join(' '),
    ...(state ? { state } : {}),
    ...(nonce ? { nonce } : {}),
    ...(verifier
      ? { code_challenge: await oauth.calculatePKCECodeChallenge(verifier), code_challenge_method: 'S256' }
      : {}),
  };
  for (const [name, value] of Object.entries(options.params ?? {})) {
    if (value === '') delete params[name];
    else params[name] = value;
  }
  const ordered = options.reverse ? Object.fromEntries(Object.entries(params).reverse()) : params;
  return {
    params: ordered,
    redirectUri,
    ...(state ? { state } : {}),
    ...(nonce ? { nonce } : {}),
    ...(verifier ? { verifier } : {}),
  };
}

/** The URL of a GET authorization request. */
export function authUrl(metadata: Metadata, t: ModuleContext, request: AuthRequest): string {
  const url = new URL(endpoint(t, metadata, 'authorization_endpoint'));
  for (const [name, value] of Object.entries(request.params)) url.searchParams.set(name, value);
  return url.href;
}

/** A record of where the browser went, for failure reports (an exchange of the user agent). */
export function landingExchange(method: string, requestUrl: string, landing: Landing): Exchange {
  return {
    request: { method, url: requestUrl, headers: { 'user-agent': 'Chromium (the user)' } },
    response:
      landing.kind === 'redirect'
        ? {
            status: 302,
            headers: { location: landing.url.href },
            body: landing.form ? landing.form.toString() : '',
          }
        : { status: landing.status ?? 0, headers: { 'content-location': landing.url }, body: landing.text },
  };
}

/** The parameters of an authorization response (query, or form for `form_post`). */
export function responseParams(landing: Landing & { kind: 'redirect' }): URLSearchParams {
  if (landing.form) return landing.form;
  if (landing.url.hash.length > 1 && !landing.url.search)
    return new URLSearchParams(landing.url.hash.slice(1));
  return landing.url.searchParams;
}

/**
 * Checks an authorization response at the redirect URI: `state` echoed (RFC 6749 §4.1.2), `iss`
 * equal to the issuer when present or advertised (RFC 9207 §2.4), and returns its parameters. Ends
 * the module when the browser never reached the redirect URI.
 */
export function readResponse(
  t: ModuleContext,
  metadata: Metadata,
  request: AuthRequest,
  landing: Landing,
  exchange: Exchange,
): URLSearchParams {
  if (landing.kind !== 'redirect') {
    return t.stop(
      'OIDCC-3.1.2.5',
      `the browser never came back to the redirect URI: it stayed on ${landing.page === 'other' ? 'a page' : `the ${landing.page} page`} of the server (${landing.url})`,
      exchange,
    );
  }
  const params = responseParams(landing);
  if (!landing.url.href.startsWith(request.redirectUri)) {
    return t.stop(
      'RFC6749-3.1.2',
      `the server redirected to ${landing.url.origin + landing.url.pathname}, not to the redirect_uri sent`,
      exchange,
    );
  }
  if (request.state !== undefined) {
    t.check(
      params.get('state') === request.state,
      'RFC6749-4.1.2',
      `state is ${JSON.stringify(params.get('state'))}, not the one sent`,
      exchange,
    );
  } else {
    t.check(
      !params.has('state'),
      'RFC6749-4.1.2',
      'no state was sent, but the response carries one',
      exchange,
    );
  }
  const iss = params.get('iss');
  if (iss !== null)
    t.check(
      iss === metadata.issuer,
      'RFC9207-2.4',
      `iss is ${JSON.stringify(iss)}, not the issuer`,
      exchange,
    );
  else if (metadata.authorization_response_iss_parameter_supported === true) {
    t.fail(
      'RFC9207-2',
      'the server advertises authorization_response_iss_parameter_supported but sent no iss',
      exchange,
    );
  }
  return params;
}

/** Reads a successful authorization response: a `code`, no `error` (ends the module otherwise). */
export function expectCode(t: ModuleContext, params: URLSearchParams, exchange: Exchange): string {
  const error = params.get('error');
  if (error !== null) {
    return t.stop(
      'OIDCC-3.1.2.5',
      `the server answered error=${error}${params.get('error_description') ? ` (${params.get('error_description')})` : ''} instead of a code`,
      exchange,
    );
  }
  const code = params.get('code');
  if (!code) return t.stop('RFC6749-4.1.2', 'the response at the redirect URI carries no code', exchange);
  return code;
}

/** Options of {@link redeem}. */
export interface RedeemOptions {
  readonly method?: AuthMethod;
  readonly verifier?: string;
  readonly redirectUri?: string;
  readonly headers?: Record<string, string>;
  readonly extra?: Record<string, string | undefined>;
}

/** Sends the token request for `code` (RFC 6749 §4.1.3); returns the raw answer. */
export async function redeem(
  t: ModuleContext,
  metadata: Metadata,
  client: ClientConfig & { redirect_uri: string },
  code: string,
  options: RedeemOptions = {},
): Promise<HttpAnswer> {
  const token = endpoint(t, metadata, 'token_endpoint');
  const auth = await clientAuth(client, options.method ?? 'client_secret_basic', metadata.issuer);
  return t.request('POST', token, {
    headers: { ...auth.headers, ...options.headers },
    form: {
      grant_type: 'authorization_code',
      code,
      redirect_uri: options.redirectUri ?? client.redirect_uri,
      ...(options.verifier ? { code_verifier: options.verifier } : {}),
      ...auth.form,
      ...options.extra,
    },
  });
}

/** What a whole code flow gave. */
export interface FlowResult {
  readonly ua: UserAgent;
  readonly request: AuthRequest;
  readonly params: URLSearchParams;
  readonly code: string;
  readonly tokens: Record<string, unknown>;
  readonly tokenAnswer: HttpAnswer;
  readonly claims: JWTPayload;
  readonly accessToken: string;
}

/** Options of {@link codeFlow}. */
export interface CodeFlowOptions extends AuthRequestOptions, GoOptions {
  readonly ua?: UserAgent;
  readonly client?: ClientConfig & { redirect_uri: string };
  readonly method?: AuthMethod;
  /** Send the request as a form POST from the browser (default GET). */
  readonly post?: boolean;
}

/**
 * The whole authorization code flow of the Basic profile: request, the user's part, response,
 * token request, ID token validation. Ends the module at the first step that cannot go on.
 */
export async function codeFlow(
  t: ModuleContext,
  env: PlanEnv,
  metadata: Metadata,
  jwks: JSONWebKeySet,
  options: CodeFlowOptions = {},
): Promise<FlowResult> {
  const client = options.client ?? needClient(t, 'client');
  const request = await authRequest(client, options);
  const ua = options.ua ?? (await env.userAgent(t));
  const url = authUrl(metadata, t, request);
  const landing = options.post
    ? await ua.post(endpoint(t, metadata, 'authorization_endpoint'), request.params, options)
    : await ua.go(url, options);
  const exchange = landingExchange(options.post ? 'POST' : 'GET', url, landing);
  const params = readResponse(t, metadata, request, landing, exchange);
  const code = expectCode(t, params, exchange);
  const tokenAnswer = await redeem(t, metadata, client, code, {
    ...(options.method ? { method: options.method } : {}),
    ...(request.verifier ? { verifier: request.verifier } : {}),
    redirectUri: request.redirectUri,
  });
  const tokens = checkTokenResponse(t, tokenAnswer);
  const accessToken = tokens.access_token as string;
  const maxAge = request.params.max_age;
  const claims = await validateIdToken(
    t,
    tokens.id_token,
    metadata,
    jwks,
    {
      client_id: client.client_id,
      ...(request.nonce ? { nonce: request.nonce } : { noNonce: true }),
      ...(maxAge ? { maxAge: Number(maxAge) } : {}),
      accessToken,
    },
    tokenAnswer.exchange,
  );
  return { ua, request, params, code, tokens, tokenAnswer, claims, accessToken };
}

/** How the access token goes to userinfo (OpenID Connect Core §5.3.1, RFC 6750 §2). */
export type UserinfoMode = 'get' | 'post-header' | 'post-body';

/** Calls userinfo; checks 200, JSON (or a JWT) and `sub` equal to the ID token's (§5.3.2). */
export async function userinfo(
  t: ModuleContext,
  metadata: Metadata,
  accessToken: string,
  sub: unknown,
  mode: UserinfoMode = 'get',
): Promise<{ answer: HttpAnswer; claims: Record<string, unknown> | undefined }> {
  const url = endpoint(t, metadata, 'userinfo_endpoint');
  const answer =
    mode === 'get'
      ? await t.request('GET', url, { headers: { authorization: `Bearer ${accessToken}` } })
      : mode === 'post-header'
        ? await t.request('POST', url, { headers: { authorization: `Bearer ${accessToken}` }, form: {} })
        : await t.request('POST', url, { form: { access_token: accessToken } });
  if (answer.status !== 200) return { answer, claims: undefined };
  const claims = answer.json as Record<string, unknown> | undefined;
  if (!claims) {
    t.check(
      /jwt/i.test(answer.headers.get('content-type') ?? ''),
      'OIDCC-5.3.2',
      'userinfo answered neither JSON nor a JWT',
      answer.exchange,
    );
    return { answer, claims: undefined };
  }
  t.check(
    claims.sub === sub,
    'OIDCC-5.3.2',
    `userinfo's sub ${JSON.stringify(claims.sub)} is not the id_token's ${JSON.stringify(sub)}`,
    answer.exchange,
  );
  return { answer, claims };
}

/** Calls userinfo and requires success (200). */
export async function userinfoOk(
  t: ModuleContext,
  metadata: Metadata,
  flow: FlowResult,
  mode: UserinfoMode = 'get',
) {
  const result = await userinfo(t, metadata, flow.accessToken, flow.claims.sub, mode);
  if (result.answer.status !== 200) {
    return t.stop(
      'OIDCC-5.3.1',
      `userinfo (${mode}) answered ${result.answer.status}, not 200`,
      result.answer.exchange,
    );
  }
  return result;
}
