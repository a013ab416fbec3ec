import {
  type ClientRecord,
  ConfigurationError,
  hashClientSecret,
  memoryClientStore,
} from '@gatehousejs/core';
import {
  type AuthorizationDetailType,
  authorizationDetailsOf,
  resourceServer,
} from '@gatehousejs/core/protect';
import { decodeJwt } from 'jose';
import { describe, expect, it } from 'vitest';
import { callbackParams, FakeBrowser } from '../../../test/browser-flow';
import {
  basic,
  ISSUER,
  mintCode,
  PKCE_CHALLENGE,
  PKCE_VERIFIER,
  post,
  REDIRECT_URI,
  type TestInstance,
  type TestOptions,
  testClients,
  testInstance,
} from '../../../test/fixtures';

/** The test type: actions a non-empty subset of read and write, nothing else. */
const TICKETS: AuthorizationDetailType = {
  validate(detail) {
    if (Object.keys(detail).some((member) => member !== 'type' && member !== 'actions'))
      return 'only "actions" is defined';
    if (!detail.actions?.length || detail.actions.some((action) => action !== 'read' && action !== 'write'))
      return '"actions" must be read and/or write';
    return undefined;
  },
  describe: (detail, locale) =>
    `${locale === 'fr' ? 'Tickets' : 'Tickets'}: ${(detail.actions ?? []).join(locale === 'fr' ? ' et ' : ' and ')}`,
};
const READ_WRITE = [{ type: 'ticket_access', actions: ['read', 'write'] }];
const READ = [{ type: 'ticket_access', actions: ['read'] }];
const OTHER = basic('other-client', 'other-secret');

async function richInstance(overrides: TestOptions = {}) {
  return testInstance({ authorizationDetails: { types: { ticket_access: TICKETS } }, ...overrides });
}

const authorizeUrl = (query: Record<string, string>) =>
  `${ISSUER}/oauth2/v1/authorize?${new URLSearchParams({
    response_type: 'code',
    client_id: 'other-client',
    redirect_uri: REDIRECT_URI,
    scope: 'read',
    state: 'rar-state',
    code_challenge: PKCE_CHALLENGE,
    code_challenge_method: 'S256',
    ...query,
  })}`;

/** authorize → login page → consent page (HTML), as the third-party `other-client`. */
async function consentPage(t: TestInstance, query: Record<string, string>) {
  const browser = new FakeBrowser(t.gatehouse);
  const login = await browser.get(authorizeUrl(query));
  expect(login.status).toBe(200);
  const consent = await browser.submitAndFollow(await login.text(), {
    username: 'demo',
    password: 'demo-password',
  });
  expect(consent.status).toBe(200);
  return { browser, html: await consent.text() };
}

/** The whole flow, allowed on the consent page: the token response of the code. */
async function grantedTokens(t: TestInstance, details: unknown = READ_WRITE) {
  const { browser, html } = await consentPage(t, { authorization_details: JSON.stringify(details) });
  const redirect = await browser.follow(await browser.submit(html, { decision: 'allow' }));
  const code = callbackParams(redirect).get('code')!;
  const response = await t.gatehouse.fetch(
    post(
      '/oauth2/v1/token',
      { grant_type: 'authorization_code', code, redirect_uri: REDIRECT_URI, code_verifier: PKCE_VERIFIER },
      { Authorization: OTHER },
    ),
  );
  expect(response.status).toBe(200);
  return (await response.json()) as {
    access_token: string;
    refresh_token: string;
    authorization_details?: unknown;
  };
}

const refresh = (t: TestInstance, token: string, extra: Record<string, string> = {}) =>
  t.gatehouse.fetch(
    post(
      '/oauth2/v1/token',
      { grant_type: 'refresh_token', refresh_token: token, ...extra },
      { Authorization: OTHER },
    ),
  );

const errorOf = async (response: Response) => ((await response.json()) as { error: string }).error;

describe('rich authorization requests (RFC 9396): configuration and metadata', () => {
  it('lists authorization_details_types_supported in both discovery documents, only when on', async () => {
    const on = await richInstance();
    for (const path of ['/.well-known/oauth-authorization-server', '/.well-known/openid-configuration']) {
      const metadata = await (await on.gatehouse.fetch(new Request(ISSUER + path))).json();
      expect(metadata.authorization_details_types_supported).toEqual(['ticket_access']);
    }
    const off = await testInstance();
    const metadata = await (
      await off.gatehouse.fetch(new Request(`${ISSUER}/.well-known/oauth-authorization-server`))
    ).json();
    expect(metadata).not.toHaveProperty('authorization_details_types_supported');
  });

  it('refuses a type without a validator or renderer, and bounds out of range, naming the option', async () => {
    const cases: [unknown, string][] = [
      [{ types: {} }, 'authorizationDetails.types'],
      [{ types: { t: { describe: () => '' } } }, 'authorizationDetails.types.t.validate'],
      [{ types: { t: { validate: () => undefined } } }, 'authorizationDetails.types.t.describe'],
      [{ types: { 'a b': TICKETS } }, 'authorizationDetails.types.a b'],
      [{ types: { t: TICKETS }, maxBytes: 100_000 }, 'authorizationDetails.maxBytes'],
      [{ types: { t: TICKETS }, maxDetails: 0 }, 'authorizationDetails.maxDetails'],
    ];
    for (const [authorizationDetails, option] of cases) {
      const error = await testInstance({ authorizationDetails } as TestOptions).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(ConfigurationError);
      expect((error as ConfigurationError).option).toBe(option);
    }
  });
});

describe('rich authorization requests (RFC 9396): the authorization endpoint', () => {
  it('shows each detail in its type’s words on the consent page, in the page’s language', async () => {
    const t = await richInstance();
    const { html } = await consentPage(t, { authorization_details: JSON.stringify(READ_WRITE) });
    expect(html).toContain('In detail:');
    expect(html).toContain('Tickets: read and write');
    const french = await consentPage(t, {
      authorization_details: JSON.stringify(READ_WRITE),
      ui_locales: 'fr',
    });
    expect(french.html).toContain('En détail :');
    expect(french.html).toContain('Tickets: read et write');
  });

  it('grants the details: in the token response, the JWT access token and introspection', async () => {
    const t = await richInstance();
    const tokens = await grantedTokens(t);
    expect(tokens.authorization_details).toEqual(READ_WRITE);
    expect(decodeJwt(tokens.access_token).authorization_details).toEqual(READ_WRITE);
    const introspection = await t.gatehouse.fetch(
      post('/oauth2/v1/introspect', { token: tokens.access_token }, { Authorization: OTHER }),
    );
    expect(await introspection.json()).toMatchObject({ active: true, authorization_details: READ_WRITE });
  });

  it('asks for consent to details every time, even for a client whose scopes were remembered', async () => {
    const t = await richInstance();
    await grantedTokens(t);
    const again = await consentPage(t, { authorization_details: JSON.stringify(READ) });
    expect(again.html).toContain('Tickets: read');
  });

  it('refuses invalid details with invalid_authorization_details on the redirect, before any page', async () => {
    const t = await richInstance({
      authorizationDetails: { types: { ticket_access: TICKETS }, maxDetails: 2 },
    });
    const cases: string[] = [
      'not json',
      '{"type":"ticket_access","actions":["read"]}',
      '[]',
      '[{"actions":["read"]}]',
      '[{"type":"payment","amount":3}]',
      '[{"type":"ticket_access","actions":["delete"]}]',
      '[{"type":"ticket_access","actions":"read"}]',
      JSON.stringify([...READ, ...READ, ...READ]),
      JSON.stringify([{ type: 'ticket_access', actions: ['read'], padding: 'x'.repeat(3000) }]),
    ];
    for (const details of cases) {
      const response = await t.gatehouse.fetch(new Request(authorizeUrl({ authorization_details: details })));
      expect(response.status).toBe(303);
      const location = new URL(response.headers.get('location')!);
      expect({ details, error: location.searchParams.get('error') }).toEqual({
        details,
        error: 'invalid_authorization_details',
      });
      expect(location.searchParams.get('state')).toBe('rar-state');
    }
  });

  it('refuses a type the client is not registered for (authorizationDetailsTypes)', async () => {
    const clients: ClientRecord[] = [
      ...(await testClients()),
      {
        id: 'payments-only',
        type: 'confidential',
        secretHash: await hashClientSecret('payments-secret'),
        redirectUris: [REDIRECT_URI],
        authorizationDetailsTypes: ['payment_initiation'],
      },
    ];
    const t = await richInstance({
      clients: memoryClientStore(clients),
      authorizationDetails: {
        types: {
          ticket_access: TICKETS,
          payment_initiation: { validate: () => undefined, describe: () => 'A payment' },
        },
      },
    });
    const response = await t.gatehouse.fetch(
      new Request(authorizeUrl({ client_id: 'payments-only', authorization_details: JSON.stringify(READ) })),
    );
    expect(new URL(response.headers.get('location')!).searchParams.get('error')).toBe(
      'invalid_authorization_details',
    );
  });

  it('ignores the parameter when the feature is off (RFC 6749 §3.1)', async () => {
    const t = await testInstance();
    const tokens = await grantedTokens(t);
    expect(tokens).not.toHaveProperty('authorization_details');
    expect(decodeJwt(tokens.access_token)).not.toHaveProperty('authorization_details');
  });

  it('accepts details pushed to the PAR endpoint, refuses invalid ones there with a JSON 400', async () => {
    const t = await richInstance();
    const push = (details: string) =>
      t.gatehouse.fetch(
        post(
          '/oauth2/v1/par',
          {
            response_type: 'code',
            redirect_uri: REDIRECT_URI,
            scope: 'read',
            code_challenge: PKCE_CHALLENGE,
            code_challenge_method: 'S256',
            authorization_details: details,
          },
          { Authorization: OTHER },
        ),
      );
    expect((await push(JSON.stringify(READ))).status).toBe(201);
    const refused = await push('[{"type":"ticket_access","actions":["admin"]}]');
    expect(refused.status).toBe(400);
    const body = (await refused.json()) as { error: string; error_description: string };
    expect(body.error).toBe('invalid_authorization_details');
    expect(body.error_description).toContain('read and/or write');
  });
});

describe('rich authorization requests (RFC 9396): the token endpoint', () => {
  it('narrows the details on refresh, refuses a widening without spending the token, keeps the grant whole', async () => {
    const t = await richInstance();
    const tokens = await grantedTokens(t);
    // Within the grant, in another order: every detail asked for is covered by one granted.
    const wider = await refresh(t, tokens.refresh_token, {
      authorization_details: '[{"type":"ticket_access","actions":["write","read"]}]',
    });
    expect(wider.status).toBe(200);
    const next = (await wider.json()) as { refresh_token: string };
    const widen = await refresh(t, next.refresh_token, {
      authorization_details: '[{"type":"ticket_access","actions":["read","write"],"extra":1}]',
    });
    expect([widen.status, await errorOf(widen)]).toEqual([400, 'invalid_authorization_details']);
    const narrowed = await refresh(t, next.refresh_token, { authorization_details: JSON.stringify(READ) });
    expect(narrowed.status).toBe(200);
    const narrow = (await narrowed.json()) as {
      access_token: string;
      refresh_token: string;
      authorization_details: unknown;
    };
    expect(narrow.authorization_details).toEqual(READ);
    expect(decodeJwt(narrow.access_token).authorization_details).toEqual(READ);
    // The refresh token keeps the whole grant: the next refresh without the parameter gets all.
    const whole = await refresh(t, narrow.refresh_token);
    expect(((await whole.json()) as { authorization_details: unknown }).authorization_details).toEqual(
      READ_WRITE,
    );
  });

  it('refuses details on a grant that has none, leaving its code unspent', async () => {
    const t = await richInstance();
    const code = await mintCode(t, { clientId: 'other-client', scope: 'read' });
    const exchange = (extra: Record<string, string> = {}) =>
      t.gatehouse.fetch(
        post(
          '/oauth2/v1/token',
          {
            grant_type: 'authorization_code',
            code,
            redirect_uri: REDIRECT_URI,
            code_verifier: PKCE_VERIFIER,
            ...extra,
          },
          { Authorization: OTHER },
        ),
      );
    const refused = await exchange({ authorization_details: JSON.stringify(READ) });
    expect([refused.status, await errorOf(refused)]).toEqual([400, 'invalid_authorization_details']);
    const granted = await exchange();
    expect(granted.status).toBe(200);
    expect(await granted.json()).not.toHaveProperty('authorization_details');
  });

  it('gives a client acting for itself the details it asks for, checked by their type', async () => {
    const clients: ClientRecord[] = [
      ...(await testClients()),
      {
        id: 'service',
        type: 'confidential',
        secretHash: await hashClientSecret('service-secret'),
        grantTypes: ['client_credentials'],
        redirectUris: [],
      },
    ];
    const t = await richInstance({ clients: memoryClientStore(clients) });
    const request = (details: string) =>
      t.gatehouse.fetch(
        post(
          '/oauth2/v1/token',
          { grant_type: 'client_credentials', authorization_details: details },
          { Authorization: basic('service', 'service-secret') },
        ),
      );
    const granted = await request(JSON.stringify(READ));
    expect(granted.status).toBe(200);
    const body = (await granted.json()) as { access_token: string; authorization_details: unknown };
    expect(body.authorization_details).toEqual(READ);
    expect(decodeJwt(body.access_token).authorization_details).toEqual(READ);
    const refused = await request('[{"type":"ticket_access"}]');
    expect([refused.status, await errorOf(refused)]).toEqual([400, 'invalid_authorization_details']);
  });
});

describe('rich authorization requests (RFC 9396): the caller of a protected operation', () => {
  it('carries the granted details, typed, on the caller of gatehouse.authenticate and of resourceServer()', async () => {
    const t = await richInstance({ now: Date.now });
    const tokens = await grantedTokens(t);
    const request = () =>
      new Request(`${ISSUER}/api/v1/tickets`, {
        headers: { Authorization: `Bearer ${tokens.access_token}` },
      });
    const local = await t.gatehouse.authenticate(request(), { schemes: ['bearer'] });
    expect(local.ok && local.caller.authorizationDetails).toEqual(READ_WRITE);
    const server = resourceServer({
      issuer: ISSUER,
      resource: `${ISSUER}/api/v1`,
      fetch: (url, init) => t.gatehouse.fetch(new Request(url, init)),
    });
    const remote = await server.authenticate(request());
    expect(remote.ok).toBe(true);
    if (!remote.ok) return;
    type Tickets = { type: 'ticket_access'; actions: readonly ('read' | 'write')[] };
    const [detail] = authorizationDetailsOf<Tickets & { [member: string]: unknown }>(
      remote.caller,
      'ticket_access',
    );
    expect(detail?.actions).toEqual(['read', 'write']);
    expect(authorizationDetailsOf(remote.caller, 'payment')).toEqual([]);
  });

  it('shows the details to a host’s own consent page through interactions.details()', async () => {
    const t = await richInstance({ interactions: { url: 'http://localhost:3000/host-login' } });
    const browser = new FakeBrowser(t.gatehouse);
    const started = await browser.getOnce(
      authorizeUrl({ authorization_details: JSON.stringify(READ), ui_locales: 'fr' }),
    );
    expect(started.status).toBe(303);
    const reference = new URL(started.headers.get('location')!).searchParams.get('interaction')!;
    const details = await t.gatehouse.interactions.details(reference);
    expect(details.authorizationDetails).toEqual([
      { type: 'ticket_access', detail: READ[0], description: 'Tickets: read' },
    ]);
  });
});
