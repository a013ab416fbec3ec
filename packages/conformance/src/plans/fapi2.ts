/**
 * `fapi2-security-profile-final-test-plan` with the variant a server without mTLS offers:
 * `private_key_jwt` client authentication, DPoP sender-constraining, unsigned (pushed)
 * authorization requests, plain responses, `plain_fapi` profile. The modules are those the
 * OpenID Foundation's plan runs for that variant (FAPI2SPFinalTestPlan minus the ones not
 * applicable to it: request objects, mTLS, the ecosystem profiles), in its order.
 */
import { decodeProtectedHeader, generateKeyPair, type JSONWebKeySet, type JWTPayload, SignJWT } from 'jose';
import * as oauth from 'oauth4webapi';
import type { GoOptions, Landing, UserAgent } from '../browser.js';
import type { ClientConfig } from '../config.js';
import type { HttpAnswer, ModuleContext } from '../context.js';
import { DpopKey, type ProofOptions } from '../dpop.js';
import type { PlanEnv } from '../env.js';
import { landingExchange, needClient, readResponse } from '../flows.js';
import {
  type AssertionOptions,
  checkTokenError,
  checkTokenResponse,
  clientAuth,
  discover,
  endpoint,
  fetchJwks,
  list,
  type Metadata,
  random,
  validateIdToken,
} from '../op.js';
import type { TestModule, TestPlan } from '../runner.js';
import { checkHttps } from './config.js';

/** FAPI 2.0 Security Profile §5.4.1: the JWS algorithms allowed. */
const FAPI_ALGS = ['PS256', 'ES256', 'EdDSA', 'Ed25519'];

type Client = ClientConfig & { redirect_uri: string };

/** What every module starts from: metadata, keys, the two clients, the endpoints. */
interface Setup {
  readonly metadata: Metadata;
  readonly jwks: JSONWebKeySet;
  readonly client: Client;
  readonly par: string;
  readonly token: string;
  /** Whether the flows ask for `openid` (an OpenID Provider: ID tokens checked). */
  readonly openid: boolean;
}

async function setup(t: ModuleContext): Promise<Setup> {
  const { metadata } = await discover(t);
  const client = needClient(t, 'fapi_client');
  if (!client.jwks)
    return t.skip("the config's `fapi_client` has no jwks (its private key for private_key_jwt)");
  const par = endpoint(t, metadata, 'pushed_authorization_request_endpoint', 'FAPI2-SP-5.3.2.2');
  const token = endpoint(t, metadata, 'token_endpoint');
  const jwks = await fetchJwks(t, metadata);
  return {
    metadata,
    jwks,
    client,
    par,
    token,
    openid: list(metadata, 'scopes_supported').includes('openid'),
  };
}

/** A pushed request and what its response must match. */
interface Pushed {
  readonly answer: HttpAnswer;
  readonly params: Record<string, string>;
  readonly requestUri?: string;
  readonly verifier: string;
  readonly state?: string;
  readonly nonce?: string;
  readonly redirectUri: string;
  readonly client: Client;
}

interface PushOptions {
  readonly client?: Client;
  /** Parameters replaced; an empty string drops one. */
  readonly params?: Record<string, string>;
  /** Send a DPoP proof of this key with the pushed request (RFC 9449 §10). */
  readonly dpop?: DpopKey;
  readonly assertion?: AssertionOptions;
  readonly method?: string;
}

/** Pushes an authorization request (RFC 9126 §2.1) with `private_key_jwt`, PKCE S256, state, nonce. */
async function push(t: ModuleContext, s: Setup, options: PushOptions = {}): Promise<Pushed> {
  const client = options.client ?? s.client;
  const verifier = oauth.generateRandomCodeVerifier();
  const params: Record<string, string> = {
    response_type: 'code',
    client_id: client.client_id,
    redirect_uri: client.redirect_uri,
    scope: [s.openid ? 'openid' : '', client.scope ?? ''].filter(Boolean).join(' '),
    state: oauth.generateRandomState(),
    ...(s.openid ? { nonce: oauth.generateRandomNonce() } : {}),
    code_challenge: await oauth.calculatePKCECodeChallenge(verifier),
    code_challenge_method: 'S256',
  };
  for (const [name, value] of Object.entries(options.params ?? {})) {
    if (value === '') delete params[name];
    else params[name] = value;
  }
  const auth = await clientAuth(client, 'private_key_jwt', s.metadata.issuer, options.assertion);
  const method = options.method ?? 'POST';
  const form = { ...params, ...auth.form };
  const answer = options.dpop
    ? await options.dpop.send(t, method, s.par, { form })
    : await t.request(method, s.par, { form });
  const body = answer.json as { request_uri?: unknown; expires_in?: unknown } | undefined;
  return {
    answer,
    params,
    ...(answer.status === 201 && typeof body?.request_uri === 'string'
      ? { requestUri: body.request_uri }
      : {}),
    verifier,
    ...(params.state ? { state: params.state } : {}),
    ...(params.nonce ? { nonce: params.nonce } : {}),
    redirectUri: params.redirect_uri ?? client.redirect_uri,
    client,
  };
}

/** Requires a pushed request to be accepted (201, `request_uri`, `expires_in` under 600 s). */
function accepted(t: ModuleContext, pushed: Pushed): string {
  const body = pushed.answer.json as { request_uri?: unknown; expires_in?: unknown } | undefined;
  if (pushed.answer.status !== 201 || !pushed.requestUri) {
    return t.stop(
      'RFC9126-2.2',
      `the pushed request was refused (${pushed.answer.status}${body && 'error' in body ? ` ${String((body as { error: unknown }).error)}` : ''})`,
      pushed.answer.exchange,
    );
  }
  t.check(
    typeof body?.expires_in === 'number' && body.expires_in > 0,
    'RFC9126-2.2',
    'the PAR response has no positive expires_in',
    pushed.answer.exchange,
  );
  if (typeof body?.expires_in === 'number')
    t.check(
      body.expires_in < 600,
      'FAPI2-SP-5.3.2.2',
      `request_uri lives ${body.expires_in} s, not under 600`,
      pushed.answer.exchange,
    );
  return pushed.requestUri;
}

/** Requires a pushed request to be refused: 400 (or 401 for client authentication) with one of `errors`. */
function refused(
  t: ModuleContext,
  pushed: Pushed,
  errors: readonly string[],
  section: string,
  what: string,
): void {
  const error = (pushed.answer.json as { error?: unknown } | undefined)?.error;
  if (pushed.answer.status === 201) {
    t.fail(section, `${what}: the PAR endpoint accepted it`, pushed.answer.exchange);
    return;
  }
  t.check(
    pushed.answer.status === 400 || pushed.answer.status === 401,
    'RFC9126-2.3',
    `${what}: status ${pushed.answer.status}, expected 400 or 401`,
    pushed.answer.exchange,
  );
  t.check(
    typeof error === 'string' && errors.includes(error),
    section,
    `${what}: error ${JSON.stringify(error)}, expected ${errors.join(' or ')}`,
    pushed.answer.exchange,
  );
}

/** Sends the browser to the authorization endpoint with `client_id` and `request_uri` (RFC 9126 §4). */
async function authorize(
  t: ModuleContext,
  env: PlanEnv,
  s: Setup,
  pushed: Pushed,
  options: GoOptions & {
    ua?: UserAgent;
    extra?: Record<string, string>;
    requestUri?: string;
    clientId?: string;
  } = {},
): Promise<{ landing: Landing; url: string; ua: UserAgent }> {
  const url = new URL(endpoint(t, s.metadata, 'authorization_endpoint'));
  url.searchParams.set('client_id', options.clientId ?? pushed.client.client_id);
  url.searchParams.set('request_uri', options.requestUri ?? pushed.requestUri ?? '');
  for (const [name, value] of Object.entries(options.extra ?? {})) url.searchParams.set(name, value);
  const ua = options.ua ?? (await env.userAgent(t));
  const landing = await ua.go(url.href, options);
  return { landing, url: url.href, ua };
}

/** Reads a successful authorization response; requires `iss` (FAPI 2.0 §5.3.2.2: RFC 9207). */
function code(t: ModuleContext, s: Setup, pushed: Pushed, landing: Landing, url: string): string {
  const x = landingExchange('GET', url, landing);
  const params = readResponse(
    t,
    s.metadata,
    {
      params: pushed.params,
      redirectUri: pushed.redirectUri,
      ...(pushed.state ? { state: pushed.state } : {}),
    },
    landing,
    x,
  );
  t.check(
    params.get('iss') === s.metadata.issuer,
    'FAPI2-SP-5.3.2.2',
    'the authorization response carries no iss (RFC 9207 is required)',
    x,
  );
  const error = params.get('error');
  if (error) return t.stop('OIDCC-3.1.2.6', `the authorization response is error=${error}`, x);
  const value = params.get('code');
  if (!value) return t.stop('RFC6749-4.1.2', 'the authorization response carries no code', x);
  return value;
}

/** Options of a token request. */
interface TokenOptions {
  readonly client?: Client;
  readonly dpop?: DpopKey | null;
  readonly proof?: ProofOptions;
  readonly assertion?: AssertionOptions;
  /** Send no client authentication at all. */
  readonly noAuth?: boolean;
  readonly form?: Record<string, string | undefined>;
}

/** A token request with `private_key_jwt` and a DPoP proof (unless `dpop: null`). */
async function tokenRequest(
  t: ModuleContext,
  s: Setup,
  form: Record<string, string | undefined>,
  options: TokenOptions = {},
): Promise<HttpAnswer> {
  const client = options.client ?? s.client;
  const auth = options.noAuth
    ? { headers: {}, form: { client_id: client.client_id } }
    : await clientAuth(client, 'private_key_jwt', s.metadata.issuer, options.assertion);
  const body = { ...form, ...auth.form, ...options.form };
  if (options.dpop === null) return t.request('POST', s.token, { form: body });
  const dpop = options.dpop ?? (await DpopKey.generate());
  return dpop.send(t, 'POST', s.token, { form: body, ...(options.proof ? { proof: options.proof } : {}) });
}

function codeForm(
  pushed: Pushed,
  value: string,
  verifier: string | null = pushed.verifier,
): Record<string, string | undefined> {
  return {
    grant_type: 'authorization_code',
    code: value,
    redirect_uri: pushed.redirectUri,
    code_verifier: verifier ?? undefined,
  };
}

/** Checks a FAPI token response: DPoP-bound, no-store, ID token signed with a FAPI algorithm. */
async function checkFapiTokens(
  t: ModuleContext,
  s: Setup,
  pushed: Pushed,
  answer: HttpAnswer,
): Promise<{ tokens: Record<string, unknown>; claims?: JWTPayload }> {
  const tokens = checkTokenResponse(t, answer, 'dpop');
  if (!s.openid) return { tokens };
  if (typeof tokens.id_token === 'string') {
    const alg = String(decodeProtectedHeader(tokens.id_token).alg);
    t.check(
      FAPI_ALGS.includes(alg),
      'FAPI2-SP-5.4.1',
      `the id_token is signed with ${alg}; the profile allows PS256, ES256 or EdDSA`,
      answer.exchange,
    );
  }
  const claims = await validateIdToken(
    t,
    tokens.id_token,
    s.metadata,
    s.jwks,
    {
      client_id: pushed.client.client_id,
      ...(pushed.nonce ? { nonce: pushed.nonce } : { noNonce: true }),
      accessToken: tokens.access_token as string,
    },
    answer.exchange,
  );
  return { tokens, claims };
}

/** The whole flow: push, the user's part, the code, tokens with DPoP. */
async function fapiFlow(
  t: ModuleContext,
  env: PlanEnv,
  s: Setup,
  options: PushOptions & {
    dpop?: DpopKey;
    tokenDpop?: DpopKey;
    ua?: UserAgent;
    extra?: Record<string, string>;
  } = {},
): Promise<{
  pushed: Pushed;
  code: string;
  tokens: Record<string, unknown>;
  claims?: JWTPayload;
  dpop: DpopKey;
  answer: HttpAnswer;
  ua: UserAgent;
}> {
  const pushed = await push(t, s, options);
  accepted(t, pushed);
  const { landing, url, ua } = await authorize(t, env, s, pushed, {
    ...(options.ua ? { ua: options.ua } : {}),
    ...(options.extra ? { extra: options.extra } : {}),
  });
  const value = code(t, s, pushed, landing, url);
  const dpop = options.tokenDpop ?? options.dpop ?? (await DpopKey.generate());
  const answer = await tokenRequest(t, s, codeForm(pushed, value), { client: pushed.client, dpop });
  const { tokens, claims } = await checkFapiTokens(t, s, pushed, answer);
  return { pushed, code: value, tokens, ...(claims ? { claims } : {}), dpop, answer, ua };
}

/** Calls userinfo (the protected resource) with the DPoP-bound token; 200 expected. */
async function resource(
  t: ModuleContext,
  s: Setup,
  dpop: DpopKey,
  accessToken: string,
  scheme = 'DPoP',
): Promise<HttpAnswer | undefined> {
  const url = s.metadata.userinfo_endpoint;
  if (typeof url !== 'string') return undefined;
  return t.request('GET', url, {
    headers: { authorization: `${scheme} ${accessToken}`, dpop: await dpop.proof('GET', url, accessToken) },
  });
}

function module(
  name: string,
  summary: string,
  sections: string[],
  run: (t: ModuleContext, env: PlanEnv, s: Setup) => Promise<void>,
): TestModule {
  return {
    name,
    summary,
    sections,
    run: async (t, env) => {
      // A request_uri lives seconds: the browser is started before anything is pushed.
      await env.ready();
      await run(t, env, await setup(t));
    },
  };
}

/** A flow expected to succeed with a change to the pushed request (and optionally a check after). */
function succeeds(
  name: string,
  summary: string,
  sections: string[],
  options: (s: Setup) => PushOptions & { extra?: Record<string, string> },
  after?: (t: ModuleContext, s: Setup, flow: Awaited<ReturnType<typeof fapiFlow>>) => Promise<void> | void,
): TestModule {
  return module(name, summary, sections, async (t, env, s) => {
    const flow = await fapiFlow(t, env, s, options(s));
    if (after) await after(t, s, flow);
  });
}

/** A pushed request the PAR endpoint must refuse (or, with `atAuthorization`, the authorization endpoint). */
function parRefuses(
  name: string,
  summary: string,
  sections: string[],
  options: (s: Setup) => PushOptions,
  errors: readonly string[],
  atAuthorization = false,
): TestModule {
  return module(name, summary, sections, async (t, env, s) => {
    const pushed = await push(t, s, options(s));
    if (pushed.answer.status !== 201 || !atAuthorization) {
      refused(t, pushed, errors, sections[0]!, summary);
      return;
    }
    // Accepted at PAR: the authorization endpoint must refuse it (an error page or an error redirect).
    const { landing, url } = await authorize(t, env, s, pushed);
    if (landing.kind === 'redirect') {
      const x = landingExchange('GET', url, landing);
      const params = landing.url.searchParams;
      t.check(!params.has('code'), sections[0]!, `${summary}: the server issued a code`, x);
    }
  });
}

/** A token request that must be refused after a normal authorization. */
function tokenRefuses(
  name: string,
  summary: string,
  sections: string[],
  errors: readonly string[],
  request: (t: ModuleContext, s: Setup, pushed: Pushed, value: string) => Promise<HttpAnswer>,
  pushOptions?: (s: Setup) => Promise<PushOptions> | PushOptions,
): TestModule {
  return module(name, summary, sections, async (t, env, s) => {
    const pushed = await push(t, s, pushOptions ? await pushOptions(s) : {});
    accepted(t, pushed);
    const { landing, url } = await authorize(t, env, s, pushed);
    const value = code(t, s, pushed, landing, url);
    const answer = await request(t, s, pushed, value);
    checkTokenError(t, answer, errors, sections[0]!, summary);
  });
}

function second(t: ModuleContext): Client {
  const client = needClient(t, 'fapi_client2');
  if (!client.jwks) return t.skip("the config's `fapi_client2` has no jwks");
  return client;
}

const modules: TestModule[] = [
  module(
    'fapi2-security-profile-final-discovery-end-point-verification',
    'The metadata of a FAPI 2.0 server: PAR required, private_key_jwt, DPoP algorithms, S256, code only, iss in responses, FAPI algorithms, https.',
    ['FAPI2-SP-5.3.2.1', 'FAPI2-SP-5.3.2.2', 'RFC9126-5', 'RFC9449-5.1', 'RFC8414-2', 'RFC9207-3'],
    async (t, _env, s) => {
      const { metadata: m, answer } = await discover(t);
      const x = answer.exchange;
      t.check(
        m.require_pushed_authorization_requests === true,
        'FAPI2-SP-5.3.2.2',
        'require_pushed_authorization_requests is not true',
        x,
      );
      t.check(
        list(m, 'token_endpoint_auth_methods_supported').includes('private_key_jwt'),
        'FAPI2-SP-5.3.2.1',
        'token_endpoint_auth_methods_supported does not list private_key_jwt',
        x,
      );
      for (const method of list(m, 'token_endpoint_auth_methods_supported')) {
        if (!['private_key_jwt', 'tls_client_auth', 'self_signed_tls_client_auth', 'none'].includes(method))
          t.warn(
            'FAPI2-SP-5.3.2.1',
            `token_endpoint_auth_methods_supported lists ${method}, which the profile does not allow`,
            x,
          );
      }
      const dpopAlgs = list(m, 'dpop_signing_alg_values_supported');
      t.check(dpopAlgs.length > 0, 'RFC9449-5.1', 'dpop_signing_alg_values_supported is missing', x);
      for (const alg of dpopAlgs)
        if (!FAPI_ALGS.includes(alg))
          t.warn('FAPI2-SP-5.4.1', `dpop_signing_alg_values_supported lists ${alg}`, x);
      t.check(
        list(m, 'code_challenge_methods_supported').includes('S256'),
        'FAPI2-SP-5.3.2.2',
        'code_challenge_methods_supported does not list S256',
        x,
      );
      if (list(m, 'code_challenge_methods_supported').includes('plain'))
        t.fail('FAPI2-SP-5.3.2.2', 'code_challenge_methods_supported lists plain', x);
      t.check(
        m.authorization_response_iss_parameter_supported === true,
        'FAPI2-SP-5.3.2.2',
        'authorization_response_iss_parameter_supported is not true',
        x,
      );
      for (const alg of list(m, 'token_endpoint_auth_signing_alg_values_supported'))
        if (!FAPI_ALGS.includes(alg))
          t.warn('FAPI2-SP-5.4.1', `token_endpoint_auth_signing_alg_values_supported lists ${alg}`, x);
      if (s.openid)
        t.check(
          list(m, 'id_token_signing_alg_values_supported').some((alg) => FAPI_ALGS.includes(alg)),
          'FAPI2-SP-5.4.1',
          'id_token_signing_alg_values_supported lists none of PS256, ES256, EdDSA',
          x,
        );
      checkHttps(t, m, x);
    },
  ),
  module(
    'fapi2-security-profile-final-happy-flow',
    'PAR, the user, the code, DPoP-bound tokens (private_key_jwt, PKCE), the ID token, the resource with the token and a proof; the token without a proof is refused.',
    ['FAPI2-SP-5.3.2.1', 'FAPI2-SP-5.3.2.2', 'RFC9126-2', 'RFC9449-5', 'RFC9449-7', 'OIDCC-3.1.3.7'],
    async (t, env, s) => {
      const flow = await fapiFlow(t, env, s);
      const accessToken = flow.tokens.access_token as string;
      const ok = await resource(t, s, flow.dpop, accessToken);
      if (ok) {
        t.check(
          ok.status === 200,
          'RFC9449-7',
          `the resource refused the DPoP-bound token with its proof (${ok.status})`,
          ok.exchange,
        );
        const bearer = await t.request('GET', ok.exchange.request.url, {
          headers: { authorization: `Bearer ${accessToken}` },
        });
        t.check(
          bearer.status === 401 || bearer.status === 400,
          'RFC9449-7.1',
          `the DPoP-bound token was accepted as a bearer token (${bearer.status})`,
          bearer.exchange,
        );
      }
    },
  ),
  module(
    'fapi2-security-profile-final-user-rejects-authentication',
    'The user denies on the consent page: access_denied at the redirect URI, with state and iss.',
    ['RFC6749-4.1.2.1', 'FAPI2-SP-5.3.2.2'],
    async (t, env, s) => {
      if (!t.config.browser?.consent?.deny) return t.skip('the config names no consent `deny` selector');
      // prompt=consent: a consent given earlier (another module's) must not spare the page.
      const pushed = await push(t, s, { params: { prompt: 'consent' } });
      accepted(t, pushed);
      const { landing, url, ua } = await authorize(t, env, s, pushed, { deny: true });
      const x = landingExchange('GET', url, landing);
      if (ua.consents === 0)
        return t.skip('the server showed no consent page to deny (a first-party client?)');
      const params = readResponse(
        t,
        s.metadata,
        {
          params: pushed.params,
          redirectUri: pushed.redirectUri,
          ...(pushed.state ? { state: pushed.state } : {}),
        },
        landing,
        x,
      );
      t.check(
        params.get('error') === 'access_denied',
        'RFC6749-4.1.2.1',
        `error is ${JSON.stringify(params.get('error'))}, expected access_denied`,
        x,
      );
      t.check(!params.has('code'), 'RFC6749-4.1.2.1', 'a denied request gave a code', x);
    },
  ),
  succeeds(
    'fapi2-security-profile-final-ensure-authorization-request-without-state-success',
    'A pushed request without state succeeds; the response has no state.',
    ['RFC6749-4.1.1'],
    () => ({ params: { state: '' } }),
  ),
  module(
    'fapi2-security-profile-final-ensure-authorization-request-without-nonce-success',
    'A pushed request without nonce succeeds; the ID token has no nonce.',
    ['OIDCC-3.1.2.1'],
    async (t, env, s) => {
      if (!s.openid) return t.skip('not an OpenID Provider');
      await fapiFlow(t, env, s, { params: { nonce: '' } });
    },
  ),
  module(
    'fapi2-security-profile-final-ensure-authorization-request-with-64-char-nonce-success',
    'A 64-character nonce is accepted and returned.',
    ['OIDCC-3.1.2.1'],
    async (t, env, s) => {
      if (!s.openid) return t.skip('not an OpenID Provider');
      await fapiFlow(t, env, s, { params: { nonce: 'n'.repeat(32) + random(24).slice(0, 32) } });
    },
  ),
  module(
    'fapi2-security-profile-final-ensure-other-scope-order-succeeds',
    'The scope values in another order succeed.',
    ['RFC6749-3.3'],
    async (t, env, s) => {
      if (!s.openid) return t.skip('not an OpenID Provider');
      const scope = ['openid', ...(s.client.scope ?? '').split(' ').filter(Boolean)].reverse().join(' ');
      await fapiFlow(t, env, s, { params: { scope } });
    },
  ),
  module(
    'fapi2-security-profile-final-test-claims-parameter-identity-claims',
    'The claims parameter asking identity claims in the ID token and userinfo must not fail.',
    ['OIDCC-5.5'],
    async (t, env, s) => {
      if (!s.openid) return t.skip('not an OpenID Provider');
      const claims = JSON.stringify({
        id_token: { name: null, email: null },
        userinfo: { name: null, email: null },
      });
      await fapiFlow(t, env, s, { params: { claims } });
    },
  ),
  module(
    'fapi2-security-profile-final-access-token-type-header-case-sensitivity',
    'The resource takes the DPoP authorization scheme in any case ("dpop").',
    ['RFC9110-11.1', 'RFC9449-7.1'],
    async (t, env, s) => {
      const flow = await fapiFlow(t, env, s);
      const answer = await resource(t, s, flow.dpop, flow.tokens.access_token as string, 'dpop');
      if (!answer) return t.skip('the server has no userinfo endpoint to call');
      t.check(
        answer.status === 200,
        'RFC9110-11.1',
        `the scheme "dpop" (lower case) was refused (${answer.status}); schemes are case-insensitive`,
        answer.exchange,
      );
    },
  ),
  module(
    'fapi2-security-profile-final-check-dpop-proof-nbf-exp',
    'A DPoP proof carrying nbf and exp (not defined by RFC 9449) is accepted at the token endpoint.',
    ['RFC9449-4.2'],
    async (t, env, s) => {
      const pushed = await push(t, s);
      accepted(t, pushed);
      const { landing, url } = await authorize(t, env, s, pushed);
      const value = code(t, s, pushed, landing, url);
      const now = Math.floor(Date.now() / 1000);
      const answer = await tokenRequest(t, s, codeForm(pushed, value), {
        proof: { nbfExp: { nbf: now - 5, exp: now + 60 } },
      });
      await checkFapiTokens(t, s, pushed, answer);
    },
  ),
  ...([-10, 10] as const).map((shift) =>
    module(
      `fapi2-security-profile-final-ensure-dpopproof-with-iat-10seconds-${shift < 0 ? 'before' : 'after'}-succeeds`,
      `A DPoP proof whose iat is 10 s ${shift < 0 ? 'in the past' : 'in the future'} is accepted (clock skew).`,
      ['RFC9449-11.1'],
      async (t, env, s) => {
        const pushed = await push(t, s);
        accepted(t, pushed);
        const { landing, url } = await authorize(t, env, s, pushed);
        const value = code(t, s, pushed, landing, url);
        const answer = await tokenRequest(t, s, codeForm(pushed, value), { proof: { iatShift: shift } });
        await checkFapiTokens(t, s, pushed, answer);
      },
    ),
  ),
  module(
    'fapi2-security-profile-final-ensure-mismatched-dpop-jkt-fails',
    'A pushed request whose dpop_jkt is not the key of its DPoP proof is refused at the PAR endpoint.',
    ['RFC9449-10.1'],
    async (t, _env, s) => {
      const [a, b] = await Promise.all([DpopKey.generate(), DpopKey.generate()]);
      const pushed = await push(t, s, { dpop: a, params: { dpop_jkt: b.thumbprint } });
      refused(
        t,
        pushed,
        ['invalid_dpop_proof', 'invalid_request'],
        'RFC9449-10.1',
        'dpop_jkt and the proof disagree',
      );
    },
  ),
  tokenRefuses(
    'fapi2-security-profile-final-ensure-token-endpoint-fails-with-mismatched-dpop-proof-jkt',
    'A code bound by the DPoP proof at PAR, redeemed with a proof of another key: refused.',
    ['RFC9449-10'],
    ['invalid_grant', 'invalid_dpop_proof'],
    async (t, s, pushed, value) =>
      tokenRequest(t, s, codeForm(pushed, value), { dpop: await DpopKey.generate() }),
    async () => ({ dpop: await DpopKey.generate() }),
  ),
  tokenRefuses(
    'fapi2-security-profile-final-ensure-token-endpoint-fails-with-mismatched-dpop-jkt',
    'A code bound by dpop_jkt, redeemed with a proof of another key: refused.',
    ['RFC9449-10'],
    ['invalid_grant', 'invalid_dpop_proof'],
    async (t, s, pushed, value) =>
      tokenRequest(t, s, codeForm(pushed, value), { dpop: await DpopKey.generate() }),
    async () => ({ params: { dpop_jkt: (await DpopKey.generate()).thumbprint } }),
  ),
  module(
    'fapi2-security-profile-final-ensure-dpopproof-at-par-endpoint-binding-success',
    'A code bound by the DPoP proof at PAR, redeemed with the same key: accepted.',
    ['RFC9449-10'],
    async (t, env, s) => {
      const key = await DpopKey.generate();
      await fapiFlow(t, env, s, { dpop: key });
    },
  ),
  module(
    'fapi2-security-profile-final-ensure-dpop-auth-code-binding-success',
    'A code bound by dpop_jkt, redeemed with that key: accepted.',
    ['RFC9449-10'],
    async (t, env, s) => {
      const key = await DpopKey.generate();
      await fapiFlow(t, env, s, { params: { dpop_jkt: key.thumbprint }, tokenDpop: key });
    },
  ),
  module(
    'fapi2-security-profile-final-ensure-different-nonce-inside-and-outside-request-object',
    'A nonce outside the pushed request is ignored: the ID token has the pushed nonce.',
    ['RFC9126-4', 'OIDCC-3.1.3.7'],
    async (t, env, s) => {
      if (!s.openid) return t.skip('not an OpenID Provider');
      await fapiFlow(t, env, s, { extra: { nonce: random(12) } });
    },
  ),
  module(
    'fapi2-security-profile-final-ensure-different-state-inside-and-outside-request-object',
    'A state outside the pushed request is ignored: the response has the pushed state.',
    ['RFC9126-4'],
    async (t, env, s) => {
      await fapiFlow(t, env, s, { extra: { state: random(12) } });
    },
  ),
  ...(['nonce', 'state'] as const).map((name) =>
    module(
      `fapi2-security-profile-final-ensure-authorization-request-with-long-${name}`,
      `A ${name} of 384 characters: returned as sent, or refused with an error.`,
      ['RFC6749-4.1.2'],
      async (t, env, s) => {
        if (name === 'nonce' && !s.openid) return t.skip('not an OpenID Provider');
        const pushed = await push(t, s, { params: { [name]: random(288) } });
        if (pushed.answer.status !== 201) {
          refused(t, pushed, ['invalid_request'], 'RFC9126-2.3', `a long ${name}`);
          return;
        }
        const { landing, url } = await authorize(t, env, s, pushed);
        if (landing.kind === 'page') return; // an error page is allowed
        const value = code(t, s, pushed, landing, url);
        await checkFapiTokens(t, s, pushed, await tokenRequest(t, s, codeForm(pushed, value)));
      },
    ),
  ),
  module(
    'fapi2-security-profile-final-state-only-outside-request-object-not-used',
    'A state only outside the pushed request is not returned.',
    ['RFC9126-4'],
    async (t, env, s) => {
      const pushed = await push(t, s, { params: { state: '' } });
      accepted(t, pushed);
      const outside = random(12);
      const { landing, url } = await authorize(t, env, s, pushed, { extra: { state: outside } });
      const x = landingExchange('GET', url, landing);
      if (landing.kind === 'redirect')
        t.check(
          landing.url.searchParams.get('state') !== outside,
          'RFC9126-4',
          'the server used a state from outside the pushed request',
          x,
        );
    },
  ),
  parRefuses(
    'fapi2-security-profile-final-ensure-request-object-without-redirect-uri-fails',
    'A pushed request without redirect_uri is refused (invalid_request).',
    ['FAPI2-SP-5.3.2.2'],
    () => ({ params: { redirect_uri: '' } }),
    ['invalid_request'],
  ),
  module(
    'fapi2-security-profile-final-plain-fapi-tolerate-unregistered-redirect-uri',
    'An unregistered redirect_uri in a pushed (authenticated) request: accepted (RFC 9126 §2.4 allows it) or refused with invalid_request.',
    ['RFC9126-2.4'],
    async (t, env, s) => {
      const uri = `${s.client.redirect_uri.replace(/\/?$/, '')}/unregistered-${random(6)}`;
      env.captureUri(uri);
      const pushed = await push(t, s, { params: { redirect_uri: uri } });
      if (pushed.answer.status !== 201) {
        refused(
          t,
          pushed,
          ['invalid_request', 'invalid_redirect_uri'],
          'RFC9126-2.4',
          'an unregistered redirect_uri',
        );
        return;
      }
      const { landing, url } = await authorize(t, env, s, pushed);
      if (landing.kind === 'page') return;
      const value = code(t, s, pushed, landing, url);
      await checkFapiTokens(t, s, pushed, await tokenRequest(t, s, codeForm(pushed, value)));
    },
  ),
  module(
    'fapi2-security-profile-final-ensure-unsigned-authorization-request-without-using-par-fails',
    'An authorization request sent to the authorization endpoint without PAR: no code.',
    ['FAPI2-SP-5.3.2.2'],
    async (t, env, s) => {
      const url = new URL(endpoint(t, s.metadata, 'authorization_endpoint'));
      const verifier = oauth.generateRandomCodeVerifier();
      const params = {
        response_type: 'code',
        client_id: s.client.client_id,
        redirect_uri: s.client.redirect_uri,
        scope: s.openid ? 'openid' : (s.client.scope ?? ''),
        state: random(8),
        code_challenge: await oauth.calculatePKCECodeChallenge(verifier),
        code_challenge_method: 'S256',
      };
      for (const [name, value] of Object.entries(params)) url.searchParams.set(name, value);
      const ua = await env.userAgent(t);
      const landing = await ua.go(url.href);
      if (landing.kind === 'redirect')
        t.check(
          !landing.url.searchParams.has('code'),
          'FAPI2-SP-5.3.2.2',
          'a request not pushed gave a code',
          landingExchange('GET', url.href, landing),
        );
    },
  ),
  module(
    'fapi2-security-profile-final-ensure-redirect-uri-in-authorization-request',
    'A pushed request without redirect_uri: refused at PAR, an error page, or the registered URI used.',
    ['RFC6749-3.1.2.3', 'FAPI2-SP-5.3.2.2'],
    async (t, env, s) => {
      const pushed = await push(t, s, { params: { redirect_uri: '' } });
      if (pushed.answer.status !== 201) {
        refused(t, pushed, ['invalid_request'], 'FAPI2-SP-5.3.2.2', 'no redirect_uri');
        return;
      }
      const { landing, url } = await authorize(t, env, s, pushed);
      if (landing.kind === 'redirect')
        t.check(
          landing.url.href.startsWith(s.client.redirect_uri),
          'RFC6749-3.1.2.3',
          'the server redirected elsewhere than the registered URI',
          landingExchange('GET', url, landing),
        );
    },
  ),
  parRefuses(
    'fapi2-security-profile-final-ensure-response-type-code-idtoken-fails',
    'response_type=code id_token is refused (code only).',
    ['FAPI2-SP-5.3.2.2'],
    () => ({ params: { response_type: 'code id_token' } }),
    ['unsupported_response_type', 'invalid_request', 'unauthorized_client'],
    true,
  ),
  parRefuses(
    'fapi2-security-profile-final-ensure-response-type-token-fails',
    'response_type=token is refused (code only).',
    ['FAPI2-SP-5.3.2.2'],
    () => ({ params: { response_type: 'token' } }),
    ['unsupported_response_type', 'invalid_request', 'unauthorized_client'],
    true,
  ),
  tokenRefuses(
    'fapi2-security-profile-final-ensure-client-id-in-token-endpoint',
    "The code redeemed with the second client's credentials: invalid_client (or invalid_grant).",
    ['RFC6749-4.1.3'],
    ['invalid_client', 'invalid_grant'],
    async (t, s, pushed, value) => tokenRequest(t, s, codeForm(pushed, value), { client: second(t) }),
  ),
  tokenRefuses(
    'fapi2-security-profile-final-ensure-holder-of-key-required',
    'A token request without a DPoP proof is refused (sender-constrained tokens only).',
    ['FAPI2-SP-5.3.2.1'],
    ['invalid_request', 'invalid_dpop_proof'],
    async (t, s, pushed, value) => tokenRequest(t, s, codeForm(pushed, value), { dpop: null }),
  ),
  tokenRefuses(
    'fapi2-security-profile-final-ensure-authorization-code-is-bound-to-client',
    "The second client redeems the first client's code: invalid_grant.",
    ['RFC6749-4.1.3'],
    ['invalid_grant'],
    async (t, s, pushed, value) => {
      const other = second(t);
      return tokenRequest(
        t,
        s,
        { ...codeForm(pushed, value), redirect_uri: other.redirect_uri },
        { client: other },
      );
    },
  ),
  module(
    'fapi2-security-profile-final-attempt-reuse-authorization-code-after-one-second',
    'A code used again a second later: invalid_grant.',
    ['RFC6749-4.1.2', 'FAPI2-SP-5.3.2.2'],
    async (t, env, s) => {
      const flow = await fapiFlow(t, env, s);
      await t.sleep(1000);
      const again = await tokenRequest(t, s, codeForm(flow.pushed, flow.code), { dpop: flow.dpop });
      checkTokenError(t, again, ['invalid_grant'], 'RFC6749-4.1.2', 'the code a second time');
    },
  ),
  tokenRefuses(
    'fapi2-security-profile-final-ensure-token-endpoint-fails-with-expired-auth-code',
    'A code used for the first time after its lifetime (at most 60 s): invalid_grant.',
    ['FAPI2-SP-5.3.2.2'],
    ['invalid_grant'],
    async (t, s, pushed, value) => {
      await t.sleep((t.config.auth_code_expiry_wait_seconds ?? 65) * 1000);
      return tokenRequest(t, s, codeForm(pushed, value));
    },
  ),
  tokenRefuses(
    'fapi2-security-profile-final-ensure-signed-client-assertion-with-RS256-fails',
    'A client assertion signed with RS256 is refused (PS256, ES256, EdDSA only).',
    ['FAPI2-SP-5.4.1'],
    ['invalid_client'],
    async (t, s, pushed, value) => {
      const { privateKey } = await generateKeyPair('RS256');
      const kid = (s.client.jwks?.keys[0] as { kid?: string } | undefined)?.kid;
      const now = Math.floor(Date.now() / 1000);
      const assertion = await new SignJWT({
        iss: s.client.client_id,
        sub: s.client.client_id,
        aud: s.metadata.issuer,
        jti: random(12),
        iat: now,
        exp: now + 60,
      })
        .setProtectedHeader({ alg: 'RS256', ...(kid ? { kid } : {}) })
        .sign(privateKey);
      return tokenRequest(t, s, codeForm(pushed, value), {
        noAuth: true,
        form: {
          client_assertion_type: 'urn:ietf:params:oauth:client-assertion-type:jwt-bearer',
          client_assertion: assertion,
        },
      });
    },
  ),
  tokenRefuses(
    'fapi2-security-profile-final-ensure-client-assertion-in-token-endpoint',
    'A token request without a client assertion: invalid_client or invalid_request.',
    ['OIDCC-9', 'RFC6749-3.2.1'],
    ['invalid_client', 'invalid_request'],
    async (t, s, pushed, value) => tokenRequest(t, s, codeForm(pushed, value), { noAuth: true }),
  ),
  tokenRefuses(
    'fapi2-security-profile-final-ensure-client-assertion-with-exp-is-5-minutes-in-past-fails',
    'A client assertion expired 5 minutes ago: invalid_client.',
    ['RFC7523-3'],
    ['invalid_client'],
    async (t, s, pushed, value) =>
      tokenRequest(t, s, codeForm(pushed, value), { assertion: { iatShift: -360, expIn: 60 } }),
  ),
  tokenRefuses(
    'fapi2-security-profile-final-ensure-client-assertion-with-wrong-aud-fails',
    'A client assertion for another audience: invalid_client.',
    ['RFC7523-3'],
    ['invalid_client'],
    async (t, s, pushed, value) =>
      tokenRequest(t, s, codeForm(pushed, value), { assertion: { aud: 'https://not-this-server.example/' } }),
  ),
  tokenRefuses(
    'fapi2-security-profile-final-ensure-client-assertion-with-no-sub-fails',
    'A client assertion without sub: invalid_client.',
    ['RFC7523-3'],
    ['invalid_client'],
    async (t, s, pushed, value) =>
      tokenRequest(t, s, codeForm(pushed, value), { assertion: { omit: ['sub'] } }),
  ),
  module(
    'fapi2-security-profile-final-dpop-negative-tests',
    'Bad DPoP proofs at the token endpoint are refused: wrong typ, htm, htu, old iat, no jwk, alg none, another key, a private key in the header, a reused jti.',
    ['RFC9449-4.3', 'RFC9449-11.1'],
    async (t, env, s) => {
      const pushed = await push(t, s);
      accepted(t, pushed);
      const { landing, url } = await authorize(t, env, s, pushed);
      const value = code(t, s, pushed, landing, url);
      const key = await DpopKey.generate();
      const other = await generateKeyPair('ES256');
      const cases: [string, ProofOptions][] = [
        ['typ "JWT"', { header: { typ: 'JWT' } }],
        ['htm GET', { claims: { htm: 'GET' } }],
        ['htu of another endpoint', { claims: { htu: `${s.token}/elsewhere` } }],
        ['iat an hour ago', { iatShift: -3600 }],
        ['no jwk', { header: { jwk: undefined } }],
        ['signed by another key than its jwk', { signWith: other.privateKey as CryptoKey }],
        ['no jti', { claims: { jti: undefined } }],
      ];
      // Each bad proof with the same code: the code must survive them (none is a valid request).
      for (const [what, proof] of cases) {
        const answer = await tokenRequest(t, s, codeForm(pushed, value), { dpop: key, proof });
        checkTokenError(
          t,
          answer,
          ['invalid_dpop_proof', 'invalid_request'],
          'RFC9449-4.3',
          `a DPoP proof with ${what}`,
        );
      }
      const answer = await tokenRequest(t, s, codeForm(pushed, value), { dpop: key });
      await checkFapiTokens(t, s, pushed, answer);
    },
  ),
  module(
    'fapi2-security-profile-final-refresh-token',
    'The refresh token (skipped when none is issued) works with DPoP and the client; without client authentication, or from the second client, it is refused.',
    ['RFC6749-6', 'RFC9449-5', 'FAPI2-SP-5.3.2.1'],
    async (t, env, s) => {
      const offline = list(s.metadata, 'scopes_supported').includes('offline_access');
      const scope = `${s.openid ? 'openid ' : ''}offline_access${s.client.scope ? ` ${s.client.scope}` : ''}`;
      const pushed = await push(t, s, offline ? { params: { scope, prompt: 'consent' } } : {});
      accepted(t, pushed);
      const { landing, url } = await authorize(t, env, s, pushed);
      const value = code(t, s, pushed, landing, url);
      const key = await DpopKey.generate();
      const { tokens } = await checkFapiTokens(
        t,
        s,
        pushed,
        await tokenRequest(t, s, codeForm(pushed, value), { dpop: key }),
      );
      const refresh = tokens.refresh_token;
      if (typeof refresh !== 'string') return t.skip('the token response holds no refresh_token');
      const form = { grant_type: 'refresh_token', refresh_token: refresh };
      // RFC 9449 §5: a confidential client's refresh token is bound to the client, not to a key.
      const anonymous = await tokenRequest(t, s, form, { dpop: key, noAuth: true });
      checkTokenError(
        t,
        anonymous,
        ['invalid_client', 'invalid_request', 'invalid_grant'],
        'RFC6749-6',
        'the refresh token without client authentication',
      );
      const other = t.config.fapi_client2;
      if (other?.jwks && other.redirect_uri) {
        const stolen = await tokenRequest(t, s, form, { dpop: key, client: other as Client });
        checkTokenError(
          t,
          stolen,
          ['invalid_grant'],
          'RFC6749-6',
          "the first client's refresh token used by the second",
        );
      }
      const ok = await tokenRequest(t, s, form, { dpop: key });
      const refreshed = checkTokenResponse(t, ok, 'dpop');
      if (typeof refreshed.refresh_token === 'string' && refreshed.refresh_token !== refresh) {
        t.warn(
          'FAPI2-SP-5.3.2.1',
          'the refresh token was rotated (the profile says not to, save in extraordinary circumstances)',
          ok.exchange,
        );
      }
    },
  ),
  module(
    'fapi2-security-profile-final-par-ensure-reused-request-uri-prior-to-auth-completion-succeeds',
    'The request_uri opened twice before the user finishes: the second attempt should complete (a recommendation: a warning otherwise).',
    ['RFC9126-4', 'FAPI2-SP-5.3.2.2'],
    async (t, env, s) => {
      const pushed = await push(t, s);
      accepted(t, pushed);
      const ua = await env.userAgent(t);
      const first = await authorize(t, env, s, pushed, { ua, interact: false });
      if (first.landing.kind === 'redirect')
        return t.skip('the server asked the user nothing (no login page to leave)');
      const { landing, url } = await authorize(t, env, s, pushed, { ua });
      if (landing.kind === 'page' || landing.url.searchParams.has('error')) {
        // FAPI 2.0 §5.3.2.2 note 3 recommends it: a warning, as the Foundation rates it.
        t.warn(
          'FAPI2-SP-5.3.2.2',
          'the request_uri was refused on its second visit, before the user signed in (one-time use should be enforced when the authorization completes)',
          landingExchange('GET', url, landing),
        );
        return;
      }
      const value = code(t, s, pushed, landing, url);
      await checkFapiTokens(t, s, pushed, await tokenRequest(t, s, codeForm(pushed, value)));
    },
  ),
  module(
    'fapi2-security-profile-final-par-attempt-reuse-request_uri',
    'A request_uri used again after a completed flow should be refused (a warning otherwise).',
    ['RFC9126-7.3'],
    async (t, env, s) => {
      const flow = await fapiFlow(t, env, s);
      const { landing, url } = await authorize(t, env, s, flow.pushed, { ua: flow.ua });
      if (landing.kind === 'redirect' && landing.url.searchParams.has('code'))
        t.warn(
          'RFC9126-7.3',
          'the request_uri worked a second time (it SHOULD be one-time use)',
          landingExchange('GET', url, landing),
        );
    },
  ),
  module(
    'fapi2-security-profile-final-par-attempt-to-use-expired-request_uri',
    'A request_uri used after its expires_in: refused (an error page or invalid_request_uri).',
    ['RFC9126-2.2', 'RFC9126-4'],
    async (t, env, s) => {
      const pushed = await push(t, s);
      accepted(t, pushed);
      const lifetime = Number((pushed.answer.json as { expires_in?: number }).expires_in ?? 60);
      await t.sleep((lifetime + 2) * 1000);
      const { landing, url } = await authorize(t, env, s, pushed);
      if (landing.kind === 'redirect')
        t.check(
          !landing.url.searchParams.has('code'),
          'RFC9126-4',
          'an expired request_uri gave a code',
          landingExchange('GET', url, landing),
        );
    },
  ),
  module(
    'fapi2-security-profile-final-par-ensure-jwt-client-assertions-nbf-8-seconds-in-the-future-is-accepted',
    'A client assertion whose iat and nbf are 8 s ahead (clock skew) is accepted at PAR.',
    ['FAPI2-SP-5.3.2.1', 'RFC7523-3'],
    async (t, _env, s) => {
      accepted(t, await push(t, s, { assertion: { iatShift: 8 } }));
    },
  ),
  module(
    'fapi2-security-profile-final-par-ensure-jwt-client-assertions-nbf-over-60-seconds-in-the-future-fails',
    'A client assertion whose iat and nbf are over 60 s ahead is refused at PAR.',
    ['FAPI2-SP-5.3.2.1', 'RFC7523-3'],
    async (t, _env, s) => {
      refused(
        t,
        await push(t, s, { assertion: { iatShift: 70 } }),
        ['invalid_client'],
        'RFC7523-3',
        'an assertion from the future',
      );
    },
  ),
  module(
    'fapi2-security-profile-final-par-attempt-to-use-request_uri-for-different-client',
    "The first client's request_uri with the second client's client_id: refused.",
    ['RFC9126-4'],
    async (t, env, s) => {
      const other = second(t);
      const pushed = await push(t, s);
      accepted(t, pushed);
      const { landing, url } = await authorize(t, env, s, pushed, { clientId: other.client_id });
      if (landing.kind === 'redirect')
        t.check(
          !landing.url.searchParams.has('code'),
          'RFC9126-4',
          "another client's request_uri gave a code",
          landingExchange('GET', url, landing),
        );
    },
  ),
  parRefuses(
    'fapi2-security-profile-final-par-authorization-request-containing-request_uri-form-param',
    'A pushed request holding request_uri is refused (invalid_request).',
    ['RFC9126-2.1'],
    () => ({ params: { request_uri: 'urn:ietf:params:oauth:request_uri:abc' } }),
    ['invalid_request'],
  ),
  module(
    'fapi2-security-profile-final-par-attempt-invalid-http-method',
    'The PAR endpoint refuses GET (POST only).',
    ['RFC9126-2'],
    async (t, _env, s) => {
      const answer = await t.request(
        'GET',
        `${s.par}?client_id=${encodeURIComponent(s.client.client_id)}&response_type=code`,
      );
      t.check(
        answer.status === 405 || answer.status === 400,
        'RFC9126-2',
        `GET to the PAR endpoint answered ${answer.status}, expected 405 (or 400)`,
        answer.exchange,
      );
    },
  ),
  parRefuses(
    'fapi2-security-profile-final-par-ensure-pkce-required',
    'A pushed request without code_challenge is refused (PKCE required).',
    ['FAPI2-SP-5.3.2.2', 'RFC7636-4.4.1'],
    () => ({ params: { code_challenge: '', code_challenge_method: '' } }),
    ['invalid_request'],
    true,
  ),
  tokenRefuses(
    'fapi2-security-profile-final-ensure-pkce-code-verifier-required',
    'A token request without code_verifier: invalid_grant (or invalid_request).',
    ['RFC7636-4.6'],
    ['invalid_grant', 'invalid_request'],
    async (t, s, pushed, value) => tokenRequest(t, s, codeForm(pushed, value, null)),
  ),
  tokenRefuses(
    'fapi2-security-profile-final-incorrect-pkce-code-verifier-rejected',
    'A token request with a wrong code_verifier: invalid_grant.',
    ['RFC7636-4.6'],
    ['invalid_grant'],
    async (t, s, pushed, value) =>
      tokenRequest(t, s, codeForm(pushed, value, oauth.generateRandomCodeVerifier())),
  ),
  parRefuses(
    'fapi2-security-profile-final-par-plain-pkce-rejected',
    'code_challenge_method=plain is refused (S256 only).',
    ['FAPI2-SP-5.3.2.2'],
    () => ({ params: { code_challenge: random(32), code_challenge_method: 'plain' } }),
    ['invalid_request'],
    true,
  ),
  module(
    'fapi2-security-profile-final-par-without-duplicate-parameters',
    'The authorization request with only client_id and request_uri succeeds.',
    ['RFC9126-4', 'RFC9101-5'],
    async (t, env, s) => {
      await fapiFlow(t, env, s);
    },
  ),
  ...(
    [
      [
        'par-test-array-as-audience-fails',
        'a client assertion whose aud is an array (the issuer as a string only)',
        (s: Setup) => [s.metadata.issuer],
      ],
      [
        'par-test-par-endpoint-url-as-audience-fails',
        'a client assertion whose aud is the PAR endpoint (the issuer only)',
        (s: Setup) => s.par,
      ],
      [
        'par-test-token-endpoint-url-as-audience-fails',
        'a client assertion whose aud is the token endpoint (the issuer only)',
        (s: Setup) => s.token,
      ],
    ] as const
  ).map(([name, what, aud]) =>
    module(
      `fapi2-security-profile-final-${name}`,
      `PAR refuses ${what}.`,
      ['FAPI2-SP-5.3.2.1'],
      async (t, _env, s) => {
        refused(
          t,
          await push(t, s, { assertion: { aud: aud(s) as string | string[] } }),
          ['invalid_client', 'invalid_request'],
          'FAPI2-SP-5.3.2.1',
          what,
        );
      },
    ),
  ),
];

export const fapi2Plan: TestPlan = {
  id: 'fapi2-security-profile-final-test-plan',
  title:
    'FAPI2-Security-Profile-Final: Authorization server test (private_key_jwt, DPoP, unsigned PAR, plain_fapi)',
  interactive: true,
  modules,
};
