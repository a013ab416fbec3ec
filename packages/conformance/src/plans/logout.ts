/**
 * `oidcc-rp-initiated-logout-certification-test-plan` (the RP-Initiated Logout OP profile): the
 * discovery of `end_session_endpoint`, then each module signs in, sends the user to the end-session
 * endpoint with one parameter changed, and checks where the user lands (OpenID Connect
 * RP-Initiated Logout 1.0 §2, §3) and that the session is gone (a `prompt=none` request fails).
 */
import { base64url, generateKeyPair, SignJWT } from 'jose';
import type { Landing, UserAgent } from '../browser.js';
import type { ModuleContext } from '../context.js';
import type { PlanEnv } from '../env.js';
import {
  authRequest,
  authUrl,
  codeFlow,
  type FlowResult,
  landingExchange,
  needClient,
  readResponse,
} from '../flows.js';
import { discover, endpoint, fetchJwks, type Metadata, random } from '../op.js';
import type { TestModule, TestPlan } from '../runner.js';
import { checkHttps } from './config.js';

const PROMPT_NONE_ERRORS = [
  'login_required',
  'interaction_required',
  'consent_required',
  'account_selection_required',
];

/** The client with a registered post-logout redirect URI (the config's `client`). */
function logoutClient(t: ModuleContext) {
  const client = needClient(t, 'client');
  if (!client.post_logout_redirect_uri)
    return t.skip("the config's `client` has no post_logout_redirect_uri");
  return client as typeof client & { post_logout_redirect_uri: string };
}

/** Signs in, then goes to the end-session endpoint with `params(flow)`. */
async function signInThenLogout(
  t: ModuleContext,
  env: PlanEnv,
  params: (
    flow: FlowResult,
    client: ReturnType<typeof logoutClient>,
  ) => Promise<Record<string, string>> | Record<string, string>,
): Promise<{ metadata: Metadata; flow: FlowResult; landing: Landing; url: string }> {
  const { metadata } = await discover(t);
  const endSession = endpoint(t, metadata, 'end_session_endpoint', 'OIDCRIL-2.1');
  const jwks = await fetchJwks(t, metadata);
  const client = logoutClient(t);
  const flow = await codeFlow(t, env, metadata, jwks, { client });
  const url = new URL(endSession);
  for (const [name, value] of Object.entries(await params(flow, client))) url.searchParams.set(name, value);
  const landing = await flow.ua.go(url.href);
  return { metadata, flow, landing, url: url.href };
}

/** After a logout: a `prompt=none` request must fail, the user being signed out (OIDCRIL-2). */
async function checkSignedOut(t: ModuleContext, metadata: Metadata, ua: UserAgent): Promise<void> {
  const client = logoutClient(t);
  const request = await authRequest(client, { params: { prompt: 'none' } });
  const url = authUrl(metadata, t, request);
  const landing = await ua.go(url, { interact: false });
  const x = landingExchange('GET', url, landing);
  if (landing.kind === 'page') {
    t.fail(
      'OIDCC-3.1.2.1',
      'prompt=none after the logout showed a page instead of redirecting with an error',
      x,
    );
    return;
  }
  const params = readResponse(t, metadata, request, landing, x);
  const error = params.get('error');
  t.check(
    !params.has('code') && error !== null && PROMPT_NONE_ERRORS.includes(error),
    'OIDCRIL-2',
    `the user is still signed in after the logout: prompt=none answered ${params.has('code') ? 'a code' : `error=${error}`}`,
    x,
  );
}

/** A positive module: the user ends at the post-logout redirect URI with `state` (if sent), then is signed out. */
function redirectModule(name: string, summary: string, withState: boolean): TestModule {
  return {
    name,
    summary,
    sections: ['OIDCRIL-2', 'OIDCRIL-3'],
    async run(t, env) {
      const state = random(12);
      const { metadata, flow, landing, url } = await signInThenLogout(t, env, (f, client) => ({
        id_token_hint: f.tokens.id_token as string,
        post_logout_redirect_uri: client.post_logout_redirect_uri,
        ...(withState ? { state } : {}),
      }));
      const x = landingExchange('GET', url, landing);
      const client = logoutClient(t);
      if (landing.kind !== 'redirect' || !landing.url.href.startsWith(client.post_logout_redirect_uri)) {
        return t.stop('OIDCRIL-3', 'the user did not end at the registered post_logout_redirect_uri', x);
      }
      if (withState)
        t.check(
          landing.url.searchParams.get('state') === state,
          'OIDCRIL-3',
          `state is ${JSON.stringify(landing.url.searchParams.get('state'))}, not the one sent`,
          x,
        );
      else
        t.check(
          !landing.url.searchParams.has('state'),
          'OIDCRIL-3',
          'no state was sent, but the redirect carries one',
          x,
        );
      await checkSignedOut(t, metadata, flow.ua);
    },
  };
}

/** A module where the OP logs the user out but has nowhere to send them: a page, then signed out. */
function noRedirectModule(
  name: string,
  summary: string,
  params: (flow: FlowResult) => Record<string, string>,
): TestModule {
  return {
    name,
    summary,
    sections: ['OIDCRIL-2', 'OIDCRIL-3'],
    async run(t, env) {
      const { metadata, flow, landing, url } = await signInThenLogout(t, env, (f) => params(f));
      if (landing.kind === 'redirect') {
        t.fail(
          'OIDCRIL-3',
          'the OP redirected to a client URI though no post_logout_redirect_uri was sent',
          landingExchange('GET', url, landing),
        );
      }
      await checkSignedOut(t, metadata, flow.ua);
    },
  };
}

/**
 * A module where the request must not be honoured as sent: the OP must not redirect to the
 * post-logout redirect URI (an error page, or a confirmation; confirming must not redirect either).
 */
function refusedModule(
  name: string,
  summary: string,
  sections: string[],
  params: (
    flow: FlowResult,
    client: ReturnType<typeof logoutClient>,
    env: PlanEnv,
  ) => Promise<Record<string, string>> | Record<string, string>,
): TestModule {
  return {
    name,
    summary,
    sections,
    async run(t, env) {
      const { landing, url } = await signInThenLogout(t, env, (f, client) => params(f, client, env));
      if (landing.kind === 'redirect') {
        t.fail(
          sections[0]!,
          `the OP redirected the user to ${landing.url.origin + landing.url.pathname} instead of showing an error or asking`,
          landingExchange('GET', url, landing),
        );
      }
    },
  };
}

/** An ID token whose header says `alg: none`, signature dropped (OIDCCRpInitiatedLogoutModifiedIdTokenHint). */
function unsignedCopy(idToken: string): string {
  const [, payload] = idToken.split('.');
  return `${base64url.encode(JSON.stringify({ alg: 'none', typ: 'JWT' }))}.${payload}.`;
}

/** The same claims signed by a key the OP never saw (OIDCCRpInitiatedLogoutBadIdTokenHint). */
async function foreignCopy(idToken: string): Promise<string> {
  const payload = JSON.parse(new TextDecoder().decode(base64url.decode(idToken.split('.')[1]!)));
  const { privateKey } = await generateKeyPair('RS256');
  return new SignJWT(payload).setProtectedHeader({ alg: 'RS256', kid: 'not-the-server' }).sign(privateKey);
}

const discoveryModule: TestModule = {
  name: 'oidcc-rp-initiated-logout-discovery-endpoint-verification',
  summary: 'The configuration advertises an https end_session_endpoint.',
  sections: ['OIDCRIL-2.1', 'OIDCBCL-3'],
  async run(t) {
    const { metadata, answer } = await discover(t);
    checkHttps(t, metadata, answer.exchange);
    const value = metadata.end_session_endpoint;
    if (
      !t.check(
        typeof value === 'string',
        'OIDCRIL-2.1',
        'the configuration has no end_session_endpoint',
        answer.exchange,
      )
    )
      return;
    try {
      new URL(value as string);
    } catch {
      t.fail('OIDCRIL-2.1', 'end_session_endpoint is not a URL', answer.exchange);
    }
  },
};

export const logoutPlan: TestPlan = {
  id: 'oidcc-rp-initiated-logout-certification-test-plan',
  title: 'OpenID Connect Core: RP-Initiated Logout Certification Profile Authorization server test',
  interactive: true,
  modules: [
    discoveryModule,
    redirectModule(
      'oidcc-rp-initiated-logout',
      'Logout with id_token_hint, post_logout_redirect_uri and state: back at the post-logout URI with state, and signed out.',
      true,
    ),
    refusedModule(
      'oidcc-rp-initiated-logout-bad-post-logout-redirect-uri',
      'An unregistered post_logout_redirect_uri: no redirect (an error, or a confirmation).',
      ['OIDCRIL-3', 'OIDCRIL-2'],
      (f, client, env) => {
        const bad = `${client.post_logout_redirect_uri.replace(/\/?$/, '')}/unregistered-${random(6)}`;
        env.captureUri(bad);
        return {
          id_token_hint: f.tokens.id_token as string,
          post_logout_redirect_uri: bad,
          state: random(8),
        };
      },
    ),
    refusedModule(
      'oidcc-rp-initiated-logout-modified-id-token-hint',
      'An id_token_hint turned unsigned (alg none): no redirect (an error, or a confirmation).',
      ['OIDCRIL-2', 'OIDCRIL-3'],
      (f, client) => ({
        id_token_hint: unsignedCopy(f.tokens.id_token as string),
        post_logout_redirect_uri: client.post_logout_redirect_uri,
        state: random(8),
      }),
    ),
    refusedModule(
      'oidcc-rp-initiated-logout-no-id-token-hint',
      'A post_logout_redirect_uri without id_token_hint (nothing names the client): no redirect.',
      ['OIDCRIL-3', 'OIDCRIL-2'],
      (_f, client) => ({ post_logout_redirect_uri: client.post_logout_redirect_uri, state: random(8) }),
    ),
    noRedirectModule(
      'oidcc-rp-initiated-logout-no-params',
      'The end-session endpoint without parameters: the user is signed out (a page).',
      () => ({}),
    ),
    noRedirectModule(
      'oidcc-rp-initiated-logout-no-post-logout-redirect-uri',
      'Logout with id_token_hint but no post_logout_redirect_uri: the user is signed out (a page).',
      (f) => ({ id_token_hint: f.tokens.id_token as string, state: random(8) }),
    ),
    redirectModule(
      'oidcc-rp-initiated-logout-no-state',
      'Logout without state: back at the post-logout URI without state, and signed out.',
      false,
    ),
    noRedirectModule(
      'oidcc-rp-initiated-logout-only-state',
      'The end-session endpoint with only state: the user is signed out (a page).',
      () => ({ state: random(8) }),
    ),
    refusedModule(
      'oidcc-rp-initiated-logout-query-added-to-post-logout-redirect-uri',
      'The registered post_logout_redirect_uri with ?foo=bar added (exact match required): no redirect.',
      ['OIDCRIL-3', 'OIDCRIL-2'],
      (f, client) => ({
        id_token_hint: f.tokens.id_token as string,
        post_logout_redirect_uri: `${client.post_logout_redirect_uri}?foo=bar`,
        state: random(8),
      }),
    ),
    refusedModule(
      'oidcc-rp-initiated-logout-bad-id-token-hint',
      'An id_token_hint signed by another key: no redirect (an error, or a confirmation).',
      ['OIDCRIL-2', 'OIDCRIL-3'],
      async (f, client) => ({
        id_token_hint: await foreignCopy(f.tokens.id_token as string),
        post_logout_redirect_uri: client.post_logout_redirect_uri,
        state: random(8),
      }),
    ),
  ],
};
