/**
 * `oidcc-basic-certification-test-plan` (the Basic OP profile): the authorization code flow with a
 * static confidential client, module by module in the order of the OpenID Foundation's plan
 * (OIDCCBasicTestPlan), each written here from what the Foundation's module checks.
 */
import type { JSONWebKeySet, JWTPayload } from 'jose';
import { decodeProtectedHeader, UnsecuredJWT } from 'jose';
import type { ModuleContext } from '../context.js';
import type { PlanEnv } from '../env.js';
import {
  authRequest,
  authUrl,
  type CodeFlowOptions,
  codeFlow,
  expectCode,
  type FlowResult,
  landingExchange,
  needClient,
  readResponse,
  redeem,
  userinfo,
  userinfoOk,
} from '../flows.js';
import {
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
import { serveDocuments } from '../serve.js';

/** Discovery and keys, as every module of the plan starts (GetDynamicServerConfiguration, FetchServerKeys). */
async function setup(t: ModuleContext): Promise<{ metadata: Metadata; jwks: JSONWebKeySet }> {
  const { metadata } = await discover(t);
  const jwks = await fetchJwks(t, metadata);
  return { metadata, jwks };
}

/** A module that runs one code flow (with `options`) then `after`. */
function flowModule(
  name: string,
  summary: string,
  sections: string[],
  options: (t: ModuleContext, metadata: Metadata) => CodeFlowOptions | Promise<CodeFlowOptions>,
  after?: (
    t: ModuleContext,
    metadata: Metadata,
    flow: FlowResult,
    env: PlanEnv,
    jwks: JSONWebKeySet,
  ) => Promise<void>,
): TestModule {
  return {
    name,
    summary,
    sections,
    async run(t, env) {
      const { metadata, jwks } = await setup(t);
      const flow = await codeFlow(t, env, metadata, jwks, await options(t, metadata));
      if (after) await after(t, metadata, flow, env, jwks);
    },
  };
}

/** The claims each scope asks for (OpenID Connect Core §5.4). */
const SCOPE_CLAIMS: Record<string, readonly string[]> = {
  profile: [
    'name',
    'family_name',
    'given_name',
    'middle_name',
    'nickname',
    'preferred_username',
    'profile',
    'picture',
    'website',
    'gender',
    'birthdate',
    'zoneinfo',
    'locale',
    'updated_at',
  ],
  email: ['email', 'email_verified'],
  address: ['address'],
  phone: ['phone_number', 'phone_number_verified'],
};

/** `oidcc-scope-*`: skipped unless the server lists the scopes; warns when no claim of a scope comes back. */
function scopeModule(name: string, scopes: readonly string[]): TestModule {
  return {
    name,
    summary: `Requests scope openid ${scopes.join(' ')}; the claims of ${scopes.length === 1 ? 'that scope' : 'those scopes'} should come back (userinfo or ID token).`,
    sections: ['OIDCC-5.4', 'OIDCC-5.3.2'],
    async run(t, env) {
      const { metadata, jwks } = await setup(t);
      const supported = list(metadata, 'scopes_supported');
      const missing = scopes.filter((scope) => !supported.includes(scope));
      if (metadata.scopes_supported !== undefined && missing.length > 0) {
        return t.skip(`scopes_supported does not list ${missing.join(', ')}`);
      }
      const flow = await codeFlow(t, env, metadata, jwks, { scope: ['openid', ...scopes].join(' ') });
      const { claims, answer } = await userinfoOk(t, metadata, flow);
      for (const scope of scopes) {
        const returned = SCOPE_CLAIMS[scope]!.filter(
          (claim) => claims?.[claim] !== undefined || flow.claims[claim] !== undefined,
        );
        if (returned.length === 0)
          t.warn(
            'OIDCC-5.4',
            `scope ${scope} was granted but none of its claims (${SCOPE_CLAIMS[scope]!.join(', ')}) came back`,
            answer.exchange,
          );
      }
    },
  };
}

/** The errors a `prompt=none` request may end with (OpenID Connect Core §3.1.2.6). */
const PROMPT_NONE_ERRORS = [
  'login_required',
  'interaction_required',
  'consent_required',
  'account_selection_required',
];

/** Checks that a second flow kept the same user (`sub`) and, if asked, the same `auth_time`. */
function sameUser(t: ModuleContext, first: JWTPayload, second: FlowResult, sameAuthTime: boolean): void {
  const x = second.tokenAnswer.exchange;
  t.check(
    second.claims.sub === first.sub,
    'OIDCC-3.1.3.7',
    `the second id_token's sub ${JSON.stringify(second.claims.sub)} differs from the first's`,
    x,
  );
  if (sameAuthTime && first.auth_time !== undefined && second.claims.auth_time !== undefined) {
    t.check(
      second.claims.auth_time === first.auth_time,
      'OIDCC-2',
      `auth_time changed (${first.auth_time} → ${second.claims.auth_time}) though the user did not sign in again`,
      x,
    );
  }
}

/** An unsigned request object (`alg: none`, OpenID Connect Core §6.1) holding `claims`. */
function unsignedRequestObject(metadata: Metadata, claims: Record<string, string>): string {
  return new UnsecuredJWT({ ...claims, iss: claims.client_id, aud: metadata.issuer }).encode();
}

/** Skips a request-object module unless the server accepts unsigned ones (`none` advertised). */
function needUnsignedRequestObjects(t: ModuleContext, metadata: Metadata): void {
  if (!list(metadata, 'request_object_signing_alg_values_supported').includes('none')) {
    t.skip(
      "'none' is not listed in request_object_signing_alg_values_supported: unsigned request objects are not supported",
    );
  }
}

const modules: TestModule[] = [
  flowModule(
    'oidcc-server',
    "The 'happy' flow: code, ID token (signature, iss, aud, exp, iat, nonce, sub), client_secret_basic, userinfo.",
    [
      'OIDCC-3.1.2.1',
      'OIDCC-3.1.2.5',
      'OIDCC-3.1.3.3',
      'OIDCC-3.1.3.7',
      'RFC6749-4.1',
      'RFC6749-5.1',
      'RFC9207-2.4',
    ],
    (t, metadata) => {
      const methods = metadata.token_endpoint_auth_methods_supported;
      if (methods !== undefined) {
        t.check(
          list(metadata, 'token_endpoint_auth_methods_supported').includes('client_secret_basic'),
          'OIDCD-3',
          'token_endpoint_auth_methods_supported does not list client_secret_basic',
        );
      }
      return {};
    },
    async (t, metadata, flow) => {
      await userinfoOk(t, metadata, flow);
    },
  ),
  {
    name: 'oidcc-response-type-missing',
    summary:
      'An authorization request without response_type: an error (invalid_request or unsupported_response_type) at the redirect URI, or an error page; never a code.',
    sections: ['OIDCC-3.1.2.2', 'OIDCC-3.1.2.6', 'RFC6749-4.1.2.1'],
    async run(t, env) {
      const { metadata } = await setup(t);
      const client = needClient(t, 'client');
      const request = await authRequest(client, { params: { response_type: '' } });
      const ua = await env.userAgent(t);
      const url = authUrl(metadata, t, request);
      const landing = await ua.go(url);
      const x = landingExchange('GET', url, landing);
      if (landing.kind === 'page') return; // an error page: what the Foundation's module asks a screenshot of
      const params = readResponse(t, metadata, request, landing, x);
      t.check(!params.has('code'), 'OIDCC-3.1.2.6', 'the server issued a code without response_type', x);
      const error = params.get('error');
      t.check(
        error === 'invalid_request' || error === 'unsupported_response_type',
        'RFC6749-4.1.2.1',
        `error is ${JSON.stringify(error)}, expected invalid_request or unsupported_response_type`,
        x,
      );
    },
  },
  flowModule(
    'oidcc-idtoken-signature',
    'An ID token for a client that registered no signing algorithm: signed with the default RS256, by a key of the JWKS.',
    ['OIDCC-3.1.3.7', 'OIDCR-2', 'OIDCC-10.1'],
    () => ({}),
    async (t, _metadata, flow) => {
      const header = decodeProtectedHeader(flow.tokens.id_token as string);
      t.check(
        typeof header.kid === 'string',
        'OIDCC-10.1',
        'the id_token header names no kid',
        flow.tokenAnswer.exchange,
      );
      t.check(
        header.alg === 'RS256',
        'OIDCC-3.1.3.7',
        `the id_token is signed with ${header.alg}; a client registering no id_token_signed_response_alg gets RS256 (OIDCR-2)`,
        flow.tokenAnswer.exchange,
      );
    },
  ),
  {
    name: 'oidcc-idtoken-unsigned',
    summary:
      "An ID token signed with 'none' for a client registered for it (skipped when the server does not offer 'none').",
    sections: ['OIDCC-3.1.3.7', 'OIDCR-2'],
    async run(t, env) {
      const { metadata } = await setup(t);
      if (!list(metadata, 'id_token_signing_alg_values_supported').includes('none')) {
        return t.skip("'none' is not listed in id_token_signing_alg_values_supported");
      }
      const client = needClient(t, 'client_unsigned');
      const request = await authRequest(client);
      const ua = await env.userAgent(t);
      const url = authUrl(metadata, t, request);
      const landing = await ua.go(url);
      const x = landingExchange('GET', url, landing);
      const code = expectCode(t, readResponse(t, metadata, request, landing, x), x);
      const answer = await redeem(t, metadata, client, code);
      const tokens = checkTokenResponse(t, answer);
      t.check(
        decodeProtectedHeader(String(tokens.id_token ?? '')).alg === 'none',
        'OIDCR-2',
        'the id_token is not unsigned',
        answer.exchange,
      );
    },
  },
  flowModule(
    'oidcc-userinfo-get',
    'Userinfo with GET and the access token in the Authorization header.',
    ['OIDCC-5.3.1', 'OIDCC-5.3.2', 'RFC6750-2.1'],
    () => ({}),
    async (t, metadata, flow) => {
      await userinfoOk(t, metadata, flow, 'get');
    },
  ),
  flowModule(
    'oidcc-userinfo-post-header',
    'Userinfo with POST and the access token in the Authorization header.',
    ['OIDCC-5.3.1', 'OIDCC-5.3.2', 'RFC6750-2.1'],
    () => ({}),
    async (t, metadata, flow) => {
      await userinfoOk(t, metadata, flow, 'post-header');
    },
  ),
  flowModule(
    'oidcc-userinfo-post-body',
    'Userinfo with POST and the access token in the body (optional: a refusal is a warning).',
    ['OIDCC-5.3.1', 'RFC6750-2.2'],
    () => ({}),
    async (t, metadata, flow) => {
      const { answer } = await userinfo(t, metadata, flow.accessToken, flow.claims.sub, 'post-body');
      if (answer.status !== 200)
        t.warn(
          'RFC6750-2.2',
          `userinfo refused the access token in the body (${answer.status}); servers may (RFC 6750 §2.2 is optional)`,
          answer.exchange,
        );
    },
  ),
  flowModule(
    'oidcc-ensure-request-without-nonce-succeeds-for-code-flow',
    'A code flow request without nonce must succeed (nonce is optional in the code flow); the ID token then has no nonce.',
    ['OIDCC-3.1.2.1', 'OIDCC-2'],
    () => ({ nonce: false }),
  ),
  scopeModule('oidcc-scope-profile', ['profile']),
  scopeModule('oidcc-scope-email', ['email']),
  scopeModule('oidcc-scope-address', ['address']),
  scopeModule('oidcc-scope-phone', ['phone']),
  scopeModule('oidcc-scope-all', ['address', 'email', 'phone', 'profile']),
  {
    name: 'oidcc-alternate-happy-flow',
    summary:
      'The happy flow with the scope values reversed and the query parameters in another order: order must not matter.',
    sections: ['RFC6749-3.3', 'OIDCC-3.1.2.1'],
    async run(t, env) {
      const { metadata, jwks } = await setup(t);
      const supported = list(metadata, 'scopes_supported');
      const scopes = [
        'openid',
        ...['profile', 'email'].filter((scope) => supported.includes(scope)),
      ].reverse();
      const flow = await codeFlow(t, env, metadata, jwks, { scope: scopes.join(' '), reverse: true });
      await userinfoOk(t, metadata, flow);
    },
  },
  flowModule(
    'oidcc-display-page',
    'display=page must not cause an error.',
    ['OIDCC-3.1.2.1', 'OIDCC-15.1'],
    () => ({ params: { display: 'page' } }),
  ),
  flowModule(
    'oidcc-display-popup',
    'display=popup must not cause an error.',
    ['OIDCC-3.1.2.1', 'OIDCC-15.1'],
    () => ({ params: { display: 'popup' } }),
  ),
  {
    name: 'oidcc-prompt-login',
    summary:
      'A second authorization with prompt=login must ask the user to sign in again; auth_time, when present, must move on.',
    sections: ['OIDCC-3.1.2.1', 'OIDCC-2'],
    async run(t, env) {
      const { metadata, jwks } = await setup(t);
      const first = await codeFlow(t, env, metadata, jwks);
      await t.sleep(1100);
      const before = first.ua.logins;
      const second = await codeFlow(t, env, metadata, jwks, { ua: first.ua, params: { prompt: 'login' } });
      t.check(
        first.ua.logins > before,
        'OIDCC-3.1.2.1',
        'prompt=login: the server did not ask the user to sign in again',
        second.tokenAnswer.exchange,
      );
      sameUser(t, first.claims, second, false);
      if (typeof first.claims.auth_time === 'number' && typeof second.claims.auth_time === 'number') {
        t.check(
          second.claims.auth_time > first.claims.auth_time,
          'OIDCC-3.1.2.1',
          `auth_time did not move on after the new sign-in (${first.claims.auth_time} → ${second.claims.auth_time})`,
          second.tokenAnswer.exchange,
        );
      }
    },
  },
  {
    name: 'oidcc-prompt-none-not-logged-in',
    summary:
      'prompt=none without a session: an error (login_required or another of §3.1.2.6) at the redirect URI, never a page.',
    sections: ['OIDCC-3.1.2.1', 'OIDCC-3.1.2.6'],
    async run(t, env) {
      const { metadata } = await setup(t);
      const client = needClient(t, 'client');
      const request = await authRequest(client, { params: { prompt: 'none' } });
      const ua = await env.userAgent(t);
      const url = authUrl(metadata, t, request);
      const landing = await ua.go(url, { interact: false });
      const x = landingExchange('GET', url, landing);
      if (landing.kind === 'page') {
        return t.stop(
          'OIDCC-3.1.2.1',
          `prompt=none: the server showed ${landing.page === 'other' ? 'a page' : `its ${landing.page} page`} instead of redirecting with an error`,
          x,
        );
      }
      const params = readResponse(t, metadata, request, landing, x);
      t.check(!params.has('code'), 'OIDCC-3.1.2.6', 'prompt=none without a session gave a code', x);
      const error = params.get('error');
      t.check(
        error !== null && PROMPT_NONE_ERRORS.includes(error),
        'OIDCC-3.1.2.6',
        `error is ${JSON.stringify(error)}, expected one of ${PROMPT_NONE_ERRORS.join(', ')}`,
        x,
      );
    },
  },
  {
    name: 'oidcc-prompt-none-logged-in',
    summary: 'After signing in, prompt=none must succeed without interaction; same sub and auth_time.',
    sections: ['OIDCC-3.1.2.1', 'OIDCC-2'],
    async run(t, env) {
      const { metadata, jwks } = await setup(t);
      const first = await codeFlow(t, env, metadata, jwks);
      const second = await codeFlow(t, env, metadata, jwks, {
        ua: first.ua,
        params: { prompt: 'none' },
        interact: false,
      });
      sameUser(t, first.claims, second, true);
    },
  },
  {
    name: 'oidcc-max-age-1',
    summary:
      'A second authorization with max_age=1 after a wait must ask the user to sign in again and return auth_time.',
    sections: ['OIDCC-3.1.2.1', 'OIDCC-2'],
    async run(t, env) {
      const { metadata, jwks } = await setup(t);
      const first = await codeFlow(t, env, metadata, jwks);
      // auth_time has a resolution of one second: 2 s makes "more than 1 s ago" certain.
      await t.sleep(2100);
      const before = first.ua.logins;
      const second = await codeFlow(t, env, metadata, jwks, { ua: first.ua, params: { max_age: '1' } });
      t.check(
        first.ua.logins > before,
        'OIDCC-3.1.2.1',
        'max_age=1: the server did not ask the user to sign in again',
        second.tokenAnswer.exchange,
      );
      if (typeof first.claims.auth_time === 'number' && typeof second.claims.auth_time === 'number') {
        t.check(
          second.claims.auth_time > first.claims.auth_time,
          'OIDCC-3.1.2.1',
          'auth_time did not move on after the new sign-in',
          second.tokenAnswer.exchange,
        );
      }
    },
  },
  {
    name: 'oidcc-max-age-10000',
    summary:
      'max_age=15000 then max_age=10000: no new sign-in, auth_time returned both times and equal, same sub.',
    sections: ['OIDCC-3.1.2.1', 'OIDCC-2'],
    async run(t, env) {
      const { metadata, jwks } = await setup(t);
      const first = await codeFlow(t, env, metadata, jwks, { params: { max_age: '15000' } });
      const before = first.ua.logins;
      const second = await codeFlow(t, env, metadata, jwks, { ua: first.ua, params: { max_age: '10000' } });
      t.check(
        first.ua.logins === before,
        'OIDCC-3.1.2.1',
        'max_age=10000: the server asked the user to sign in again within max_age',
        second.tokenAnswer.exchange,
      );
      sameUser(t, first.claims, second, true);
    },
  },
  flowModule(
    'oidcc-ensure-request-with-unknown-parameter-succeeds',
    'An unknown authorization parameter (extra=foobar) must be ignored.',
    ['RFC6749-3.1'],
    () => ({ params: { extra: 'foobar' } }),
  ),
  {
    name: 'oidcc-id-token-hint',
    summary:
      'prompt=none with id_token_hint set to the first ID token must succeed without interaction; same sub.',
    sections: ['OIDCC-3.1.2.1'],
    async run(t, env) {
      const { metadata, jwks } = await setup(t);
      const first = await codeFlow(t, env, metadata, jwks);
      const second = await codeFlow(t, env, metadata, jwks, {
        ua: first.ua,
        params: { prompt: 'none', id_token_hint: first.tokens.id_token as string },
        interact: false,
      });
      sameUser(t, first.claims, second, true);
    },
  },
  flowModule('oidcc-login-hint', 'login_hint must at least not cause an error.', ['OIDCC-3.1.2.1'], (t) => ({
    params: { login_hint: t.config.login_hint ?? `buffy@${new URL(t.issuer).hostname}` },
  })),
  flowModule('oidcc-ui-locales', 'ui_locales must not cause an error.', ['OIDCC-3.1.2.1'], (t) => ({
    params: { ui_locales: t.config.locale ?? 'se' },
  })),
  flowModule(
    'oidcc-claims-locales',
    'claims_locales must not cause an error.',
    ['OIDCC-5.2', 'OIDCC-15.1'],
    (t) => ({ params: { claims_locales: t.config.locale ?? 'se' } }),
  ),
  {
    name: 'oidcc-ensure-request-with-acr-values-succeeds',
    summary:
      'acr_values (the advertised ones, else "1 2") must not cause an error; the acr returned should be one of them (a warning otherwise).',
    sections: ['OIDCC-3.1.2.1', 'OIDCC-2'],
    async run(t, env) {
      const { metadata, jwks } = await setup(t);
      const advertised = list(metadata, 'acr_values_supported');
      const values = advertised.length > 0 ? advertised : ['1', '2'];
      const flow = await codeFlow(t, env, metadata, jwks, { params: { acr_values: values.join(' ') } });
      if (!values.includes(String(flow.claims.acr))) {
        t.warn(
          'OIDCC-2',
          `acr is ${JSON.stringify(flow.claims.acr)}, none of the requested ${values.join(' ')}`,
          flow.tokenAnswer.exchange,
        );
      }
    },
  },
  flowModule(
    'oidcc-codereuse',
    'A code used a second time right away should be refused with invalid_grant (a warning otherwise).',
    ['RFC6749-4.1.2', 'RFC6749-10.5'],
    () => ({}),
    async (t, metadata, flow) => {
      const client = needClient(t, 'client');
      const again = await redeem(t, metadata, client, flow.code);
      checkTokenError(t, again, ['invalid_grant'], 'RFC6749-4.1.2', 'the same code a second time', 'warn');
    },
  ),
  flowModule(
    'oidcc-codereuse-30seconds',
    'A code used again 30 seconds later must be refused with invalid_grant; the tokens it gave should be revoked (a warning otherwise).',
    ['RFC6749-4.1.2', 'RFC6749-10.5'],
    () => ({}),
    async (t, metadata, flow) => {
      const client = needClient(t, 'client');
      await t.sleep((t.config.code_reuse_wait_seconds ?? 30) * 1000);
      const again = await redeem(t, metadata, client, flow.code);
      checkTokenError(t, again, ['invalid_grant'], 'RFC6749-4.1.2', 'the same code 30 seconds later');
      const { answer } = await userinfo(t, metadata, flow.accessToken, flow.claims.sub);
      if (answer.status === 200)
        t.warn(
          'RFC6749-4.1.2',
          'the access token issued for the reused code still works at userinfo (it SHOULD be revoked)',
          answer.exchange,
        );
    },
  ),
  {
    name: 'oidcc-ensure-registered-redirect-uri',
    summary: 'An unregistered redirect_uri: the server must not redirect there (an error page).',
    sections: ['OIDCC-3.1.2.1', 'RFC6749-3.1.2.4', 'RFC6749-4.1.2.1'],
    async run(t, env) {
      const { metadata } = await setup(t);
      const client = needClient(t, 'client');
      const bad = `${client.redirect_uri.replace(/\/?$/, '')}/unregistered-${random(6)}`;
      env.captureUri(bad);
      const request = await authRequest(client, { redirectUri: bad });
      const ua = await env.userAgent(t);
      const url = authUrl(metadata, t, request);
      const landing = await ua.go(url);
      const x = landingExchange('GET', url, landing);
      if (landing.kind === 'redirect') {
        if (landing.url.href.startsWith(bad))
          t.fail('RFC6749-4.1.2.1', 'the server redirected to the unregistered redirect_uri', x);
        else
          t.warn(
            'RFC6749-4.1.2.1',
            'the server redirected (to another URI) instead of showing an error to the user',
            x,
          );
      }
    },
  },
  {
    name: 'oidcc-ensure-post-request-succeeds',
    summary:
      'The authorization request sent as a form POST should complete at the redirect URI (a warning otherwise, as the Foundation rates it).',
    sections: ['OIDCC-3.1.2.1'],
    async run(t, env) {
      const { metadata, jwks } = await setup(t);
      const client = needClient(t, 'client');
      const request = await authRequest(client);
      const ua = await env.userAgent(t);
      const landing = await ua.post(endpoint(t, metadata, 'authorization_endpoint'), request.params);
      const x = landingExchange('POST', endpoint(t, metadata, 'authorization_endpoint'), landing);
      if (landing.kind === 'page') {
        t.warn(
          'OIDCC-3.1.2.1',
          'the POST authorization request did not come back to the redirect URI (OpenID Connect Core says servers MUST support POST)',
          x,
        );
        return;
      }
      const code = expectCode(t, readResponse(t, metadata, request, landing, x), x);
      const answer = await redeem(t, metadata, client, code);
      const tokens = checkTokenResponse(t, answer);
      await validateIdToken(
        t,
        tokens.id_token,
        metadata,
        jwks,
        { client_id: client.client_id, nonce: request.nonce! },
        answer.exchange,
      );
    },
  },
  {
    name: 'oidcc-server-client-secret-post',
    summary: 'The happy flow with client_secret_post at the token endpoint.',
    sections: ['OIDCC-9', 'RFC6749-2.3.1', 'OIDCD-3'],
    async run(t, env) {
      const { metadata, jwks } = await setup(t);
      const client = t.config.client_secret_post
        ? needClient(t, 'client_secret_post')
        : needClient(t, 'client');
      t.check(
        list(metadata, 'token_endpoint_auth_methods_supported').includes('client_secret_post'),
        'OIDCD-3',
        'token_endpoint_auth_methods_supported does not list client_secret_post',
      );
      const flow = await codeFlow(t, env, metadata, jwks, { client, method: 'client_secret_post' });
      await userinfoOk(t, metadata, flow);
    },
  },
  {
    name: 'oidcc-request-uri-unsigned-supported-correctly-or-rejected-as-unsupported',
    summary:
      'An unsigned request object by reference (request_uri): processed, or refused with request_uri_not_supported.',
    sections: ['OIDCC-6.2', 'OIDCC-6.3', 'OIDCC-3.1.2.6'],
    async run(t, env) {
      const { metadata, jwks } = await setup(t);
      needUnsignedRequestObjects(t, metadata);
      const client = needClient(t, 'client');
      const inner = await authRequest(client);
      const server = await serveDocuments(t);
      const requestUri = server.put(`/request/${random(8)}`, {
        contentType: 'application/oauth-authz-req+jwt',
        body: unsignedRequestObject(metadata, inner.params),
      });
      await requestObjectFlow(
        t,
        env,
        metadata,
        jwks,
        inner,
        { client_id: client.client_id, response_type: 'code', scope: 'openid', request_uri: requestUri },
        'request_uri_not_supported',
      );
    },
  },
  {
    name: 'oidcc-unsigned-request-object-supported-correctly-or-rejected-as-unsupported',
    summary:
      'An unsigned request object by value (request): processed (its nonce in the ID token), or refused with request_not_supported.',
    sections: ['OIDCC-6.1', 'OIDCC-6.3', 'OIDCC-3.1.2.6'],
    async run(t, env) {
      const { metadata, jwks } = await setup(t);
      needUnsignedRequestObjects(t, metadata);
      const client = needClient(t, 'client');
      const inner = await authRequest(client);
      await requestObjectFlow(
        t,
        env,
        metadata,
        jwks,
        inner,
        {
          client_id: client.client_id,
          response_type: 'code',
          scope: 'openid',
          redirect_uri: client.redirect_uri,
          state: inner.state!,
          request: unsignedRequestObject(metadata, inner.params),
        },
        'request_not_supported',
      );
    },
  },
  flowModule(
    'oidcc-claims-essential',
    'The claims parameter asking name as essential in userinfo must not fail; name should come back (a warning otherwise).',
    ['OIDCC-5.5', 'OIDCC-5.5.1'],
    () => ({ params: { claims: JSON.stringify({ userinfo: { name: { essential: true } } }) } }),
    async (t, metadata, flow) => {
      const { claims, answer } = await userinfoOk(t, metadata, flow);
      if (claims?.name === undefined)
        t.warn('OIDCC-5.5.1', 'name was asked as essential but userinfo did not return it', answer.exchange);
    },
  ),
  {
    name: 'oidcc-ensure-request-object-with-redirect-uri',
    summary:
      'A request object with the registered redirect_uri and another one outside: the inner one is used, or an error page; never the outer one.',
    sections: ['OIDCC-6.1', 'OIDCC-6.3.3'],
    async run(t, env) {
      const { metadata } = await setup(t);
      needUnsignedRequestObjects(t, metadata);
      const client = needClient(t, 'client');
      const inner = await authRequest(client);
      const outer = `${client.redirect_uri.replace(/\/?$/, '')}/outer-${random(6)}`;
      env.captureUri(outer);
      const ua = await env.userAgent(t);
      const url = new URL(endpoint(t, metadata, 'authorization_endpoint'));
      const params = {
        client_id: client.client_id,
        response_type: 'code',
        scope: 'openid',
        redirect_uri: outer,
        request: unsignedRequestObject(metadata, inner.params),
      };
      for (const [name, value] of Object.entries(params)) url.searchParams.set(name, value);
      const landing = await ua.go(url.href);
      const x = landingExchange('GET', url.href, landing);
      if (landing.kind === 'page') return;
      t.check(
        !landing.url.href.startsWith(outer),
        'OIDCC-6.1',
        'the server redirected to the redirect_uri outside the request object',
        x,
      );
    },
  },
  {
    name: 'oidcc-refresh-token',
    summary:
      'Refresh tokens (skipped when none is issued): the refresh works, a refreshed ID token keeps iss/sub/aud, and the token is bound to its client.',
    sections: ['OIDCC-12', 'OIDCC-12.2', 'RFC6749-6', 'RFC6749-10.4'],
    async run(t, env) {
      const { metadata, jwks } = await setup(t);
      const client = needClient(t, 'client');
      const offline = list(metadata, 'scopes_supported').includes('offline_access');
      const flow = await codeFlow(
        t,
        env,
        metadata,
        jwks,
        offline ? { scope: 'openid offline_access', params: { prompt: 'consent' } } : {},
      );
      const refreshToken = flow.tokens.refresh_token;
      if (typeof refreshToken !== 'string') return t.skip('the token response holds no refresh_token');
      t.check(
        /^[\x20-\x7E]+$/.test(refreshToken),
        'RFC6749-A.17',
        'the refresh token has characters outside VSCHAR',
        flow.tokenAnswer.exchange,
      );
      const token = endpoint(t, metadata, 'token_endpoint');
      const auth = await clientAuth(client, 'client_secret_basic', metadata.issuer);
      const answer = await t.request('POST', token, {
        headers: auth.headers,
        form: { grant_type: 'refresh_token', refresh_token: refreshToken, ...auth.form },
      });
      const refreshed = checkTokenResponse(t, answer);
      if (refreshed.id_token !== undefined) {
        const claims = await validateIdToken(
          t,
          refreshed.id_token,
          metadata,
          jwks,
          { client_id: client.client_id, accessToken: refreshed.access_token as string },
          answer.exchange,
        );
        t.check(
          claims.sub === flow.claims.sub,
          'OIDCC-12.2',
          'the refreshed id_token has another sub',
          answer.exchange,
        );
        if (flow.claims.auth_time !== undefined)
          t.check(
            claims.auth_time === flow.claims.auth_time,
            'OIDCC-12.2',
            'the refreshed id_token has another auth_time',
            answer.exchange,
          );
      }
      const { answer: info } = await userinfo(t, metadata, refreshed.access_token as string, flow.claims.sub);
      t.check(
        info.status === 200,
        'RFC6749-6',
        `the refreshed access token does not work at userinfo (${info.status})`,
        info.exchange,
      );
      const other = t.config.client2;
      if (!other) {
        t.warn(
          'RFC6749-10.4',
          'the config has no client2: the binding of refresh tokens to their client was not checked',
        );
        return;
      }
      const latest = typeof refreshed.refresh_token === 'string' ? refreshed.refresh_token : refreshToken;
      const auth2 = await clientAuth(other, 'client_secret_basic', metadata.issuer);
      const stolen = await t.request('POST', token, {
        headers: auth2.headers,
        form: { grant_type: 'refresh_token', refresh_token: latest, ...auth2.form },
      });
      checkTokenError(t, stolen, ['invalid_grant'], 'RFC6749-6', "another client's refresh token");
    },
  },
  flowModule(
    'oidcc-ensure-request-with-valid-pkce-succeeds',
    'A valid PKCE (S256) request must succeed, whether or not the server uses PKCE.',
    ['RFC7636-4', 'RFC6749-3.1'],
    () => ({ pkce: true }),
  ),
];

/** Sends a request with a request object; accepts success (the inner nonce in the ID token) or `unsupported`. */
async function requestObjectFlow(
  t: ModuleContext,
  env: PlanEnv,
  metadata: Metadata,
  jwks: JSONWebKeySet,
  inner: Awaited<ReturnType<typeof authRequest>>,
  outer: Record<string, string>,
  unsupported: string,
): Promise<void> {
  const client = needClient(t, 'client');
  const ua = await env.userAgent(t);
  const url = new URL(endpoint(t, metadata, 'authorization_endpoint'));
  for (const [name, value] of Object.entries(outer)) url.searchParams.set(name, value);
  const landing = await ua.go(url.href);
  const x = landingExchange('GET', url.href, landing);
  const params = readResponse(t, metadata, inner, landing, x);
  const error = params.get('error');
  if (error !== null) {
    t.check(
      error === unsupported,
      'OIDCC-3.1.2.6',
      `error is ${error}; the request object must be processed, or refused with ${unsupported}`,
      x,
    );
    return;
  }
  const code = expectCode(t, params, x);
  const answer = await redeem(t, metadata, client, code);
  const tokens = checkTokenResponse(t, answer);
  await validateIdToken(
    t,
    tokens.id_token,
    metadata,
    jwks,
    { client_id: client.client_id, nonce: inner.nonce! },
    answer.exchange,
  );
}

export const basicPlan: TestPlan = {
  id: 'oidcc-basic-certification-test-plan',
  title: 'OpenID Connect Core: Basic Certification Profile Authorization server test',
  interactive: true,
  modules,
};
