import {
  type ClientRecord,
  createGatehouse,
  hashClientSecret,
  memoryClientStore,
  memoryUserStore,
  withMemoryFallback,
} from '@gatehousejs/core';
import { hashSecret, memoryGrantStore } from '@gatehousejs/core/engine';
import { decodeJwt, decodeProtectedHeader, exportJWK, generateKeyPair, type JWK, SignJWT } from 'jose';
import { beforeAll, describe, expect, it } from 'vitest';
import {
  basic,
  ISSUER,
  PKCE_CHALLENGE,
  PKCE_VERIFIER,
  post,
  REDIRECT_URI,
  type TestInstance,
  testClients,
  testHasher,
  testInstance,
  testKey,
} from '../../../test/fixtures';

const TOKEN = '/oauth2/v1/token';
const JWT_BEARER = 'urn:ietf:params:oauth:grant-type:jwt-bearer';
const EXCHANGE = 'urn:ietf:params:oauth:grant-type:token-exchange';
const ID_TOKEN = 'urn:ietf:params:oauth:token-type:id_token';
const ID_JAG = 'urn:ietf:params:oauth:token-type:id-jag';
const PARTNER = 'https://idp.partner.example';
const MCP = 'https://example.com/mcp';
const APP = { Authorization: basic('app', 'app-secret') };

let partnerKey: CryptoKey;
let partnerJwk: JWK;

beforeAll(async () => {
  const pair = await generateKeyPair('ES256', { extractable: true });
  partnerKey = pair.privateKey as CryptoKey;
  partnerJwk = { ...(await exportJWK(pair.publicKey)), kid: 'p1', alg: 'ES256' };
});

const appClient = async (grantTypes: string[]): Promise<ClientRecord> => ({
  id: 'app',
  type: 'confidential',
  secretHash: await hashClientSecret('app-secret'),
  grantTypes,
  scopes: ['read', 'write', 'openid'],
  redirectUris: [REDIRECT_URI],
});

/** The authorization server: trusts the partner's assertions, maps partner users to user-1. */
async function authorizationServer(overrides: { jwtBearer?: boolean } = {}) {
  return testInstance({
    scopes: ['openid', 'read', 'write'],
    resources: [MCP],
    clients: memoryClientStore([...(await testClients()), await appClient([JWT_BEARER])]),
    trustedIssuers: [
      {
        issuer: PARTNER,
        jwks: { keys: [partnerJwk] },
        jwtBearer: overrides.jwtBearer ?? true,
        userId: (claims) => (claims.sub === 'partner-7' ? 'user-1' : null),
      },
    ],
  });
}

function assertion(
  t: TestInstance,
  options: {
    aud?: string;
    ttl?: number;
    sub?: string;
    jti?: string;
    typ?: string;
    claims?: Record<string, unknown>;
  } = {},
) {
  const now = Math.floor(t.clock.now() / 1000);
  return new SignJWT(options.claims ?? {})
    .setProtectedHeader({ alg: 'ES256', kid: 'p1', ...(options.typ ? { typ: options.typ } : {}) })
    .setIssuer(PARTNER)
    .setSubject(options.sub ?? 'partner-7')
    .setAudience(options.aud ?? ISSUER)
    .setIssuedAt(now)
    .setExpirationTime(now + (options.ttl ?? 60))
    .setJti(options.jti ?? crypto.randomUUID())
    .sign(partnerKey);
}

const grant = (t: TestInstance, form: Record<string, string>, headers = APP) =>
  t.gatehouse.fetch(post(TOKEN, { grant_type: JWT_BEARER, ...form }, headers));

async function expectError(response: Response, error: string) {
  expect({ status: response.status, error: (await response.json()).error }).toEqual({ status: 400, error });
}

describe('JWT bearer grant (RFC 7523 §2.1)', () => {
  it("issues a token for the trusted issuer's user, once per assertion", async () => {
    const t = await authorizationServer();
    const jwt = await assertion(t);
    const response = await grant(t, { assertion: jwt, scope: 'read', resource: MCP });
    expect(response.status).toBe(200);
    const body = await response.json();
    expect(body.refresh_token).toBeUndefined();
    expect(decodeJwt(body.access_token)).toMatchObject({
      sub: 'user-1',
      client_id: 'app',
      aud: MCP,
      scope: 'read',
    });
    // RFC 7523 §3 item 7: the same jti again is a replay.
    await expectError(await grant(t, { assertion: jwt, scope: 'read' }), 'invalid_grant');
    // Also past its exp, while the clock tolerance still lets it verify (issue 27 item 5).
    t.clock.advance(62);
    await expectError(await grant(t, { assertion: jwt, scope: 'read' }), 'invalid_grant');
  });

  it('holds assertions to the private_key_jwt rules: audience, lifetime, signature, issuer, user', async () => {
    const t = await authorizationServer();
    await expectError(
      await grant(t, { assertion: await assertion(t, { aud: 'https://elsewhere.example' }) }),
      'invalid_grant',
    );
    // The token endpoint's URL is an accepted audience too.
    expect((await grant(t, { assertion: await assertion(t, { aud: ISSUER + TOKEN }) })).status).toBe(200);
    await expectError(await grant(t, { assertion: await assertion(t, { ttl: 3600 }) }), 'invalid_grant');
    const expired = await assertion(t);
    t.clock.advance(120);
    await expectError(await grant(t, { assertion: expired }), 'invalid_grant');
    await expectError(
      await grant(t, { assertion: await assertion(t, { sub: 'stranger' }) }),
      'invalid_grant',
    );
    const [header, payload] = (await assertion(t)).split('.');
    await expectError(
      await grant(t, { assertion: `${header}.${payload}.${'A'.repeat(86)}` }),
      'invalid_grant',
    );
    await expectError(await grant(t, { assertion: 'garbage' }), 'invalid_grant');
    await expectError(await grant(t, { assertion: await assertion(t), scope: 'admin' }), 'invalid_scope');
    // A refused assertion was not burnt: its jti still works once.
    const jti = crypto.randomUUID();
    await expectError(
      await grant(t, { assertion: await assertion(t, { jti, sub: 'stranger' }) }),
      'invalid_grant',
    );
    expect((await grant(t, { assertion: await assertion(t, { jti }) })).status).toBe(200);
  });

  it('is unsupported without a trusted issuer taking assertions, and listed in the metadata with one', async () => {
    const off = await authorizationServer({ jwtBearer: false });
    const response = await grant(off, { assertion: await assertion(off) });
    expect((await response.json()).error).toBe('unsupported_grant_type');
    const on = await authorizationServer();
    const metadata = await (
      await on.gatehouse.fetch(new Request(`${ISSUER}/.well-known/oauth-authorization-server`))
    ).json();
    expect(metadata.grant_types_supported).toContain(JWT_BEARER);
  });
});

describe('identity assertion JWT authorization grants (ID-JAG)', () => {
  it('round trip: the IdP issues an ID-JAG by token exchange, the authorization server redeems it once', async () => {
    const IDP = 'http://localhost:3000/idp';
    // The identity provider: app signs users in there (an ID token), and may get ID-JAGs for the
    // authorization server at ISSUER with `read` for its MCP server.
    const idpKey = await testKey();
    const idpGrants = memoryGrantStore();
    const idp = createGatehouse({
      storage: withMemoryFallback({ grants: idpGrants }),
      issuer: IDP,
      keys: [idpKey],
      clients: memoryClientStore([await appClient(['authorization_code', EXCHANGE])]),
      users: memoryUserStore([{ id: 'alice', username: 'alice', passwordHash: await testHasher.hash('x') }], {
        hasher: testHasher,
      }),
      scopes: ['openid', 'read'],
      logger: { warn() {}, error() {} },
      tokenExchange: {
        idJagAudiences: [ISSUER],
        policy: ({ client, requested }) =>
          client.id === 'app' && requested.tokenType === ID_JAG
            ? { scope: 'read', audience: [ISSUER] }
            : null,
      },
    });
    await idp.ready();
    const idpJwks = await (await idp.fetch(new Request(`${IDP}/oauth2/v1/keys`))).json();
    const as = await testInstance({
      scopes: ['openid', 'read', 'write'],
      resources: [MCP],
      clients: memoryClientStore([
        await appClient([JWT_BEARER]),
        {
          ...(await appClient([JWT_BEARER])),
          id: 'other-app',
          secretHash: await hashClientSecret('other-secret'),
        },
      ]),
      trustedIssuers: [
        { issuer: IDP, jwks: idpJwks, jwtBearer: true, userId: (c) => (c.sub === 'alice' ? 'user-1' : null) },
      ],
      now: Date.now,
    });
    // 1. The ID token: a code at the IdP redeemed by app (the login itself is another test's).
    const code = await mintCodeAt(idpGrants);
    const idTokenResponse = await idp.fetch(
      new Request(`${IDP}${TOKEN}`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/x-www-form-urlencoded', ...APP },
        body: new URLSearchParams({
          grant_type: 'authorization_code',
          code,
          redirect_uri: REDIRECT_URI,
          code_verifier: PKCE_VERIFIER,
        }),
      }),
    );
    const idToken = (await idTokenResponse.json()).id_token as string;
    // 2. Token exchange at the IdP.
    const exchangeAtIdp = (form: Record<string, string>) =>
      idp.fetch(
        new Request(`${IDP}${TOKEN}`, {
          method: 'POST',
          headers: { 'Content-Type': 'application/x-www-form-urlencoded', ...APP },
          body: new URLSearchParams({
            grant_type: EXCHANGE,
            subject_token: idToken,
            subject_token_type: ID_TOKEN,
            requested_token_type: ID_JAG,
            ...form,
          }),
        }),
      );
    const jagResponse = await exchangeAtIdp({ audience: ISSUER, resource: MCP, scope: 'read' });
    expect(jagResponse.status).toBe(200);
    const jagBody = await jagResponse.json();
    expect(jagBody).toMatchObject({
      issued_token_type: ID_JAG,
      token_type: 'N_A',
      scope: 'read',
      expires_in: 300,
    });
    const jag = jagBody.access_token as string;
    expect(decodeProtectedHeader(jag).typ).toBe('oauth-id-jag+jwt');
    expect(decodeJwt(jag)).toMatchObject({
      iss: IDP,
      sub: 'alice',
      aud: ISSUER,
      client_id: 'app',
      resource: MCP,
      scope: 'read',
    });
    // Refused at the IdP: another audience, more scope, an access token as the subject.
    expect(
      (await (await exchangeAtIdp({ audience: 'https://other-as.example', scope: 'read' })).json()).error,
    ).toBe('invalid_target');
    expect((await (await exchangeAtIdp({ audience: ISSUER, scope: 'read write' })).json()).error).toBe(
      'invalid_scope',
    );
    // 3. The JWT bearer grant at the authorization server.
    const redeem = (headers = APP, form: Record<string, string> = {}) =>
      as.gatehouse.fetch(post(TOKEN, { grant_type: JWT_BEARER, assertion: jag, ...form }, headers));
    // Another client than the one it names (registered for the grant): refused, and not burnt.
    const other = { Authorization: basic('other-app', 'other-secret') };
    expect((await (await redeem(other)).json()).error).toBe('invalid_grant');
    // More scope than the ID-JAG grants: refused.
    expect((await (await redeem(APP, { scope: 'read write' })).json()).error).toBe('invalid_scope');
    const redeemed = await redeem();
    expect(redeemed.status).toBe(200);
    const access = decodeJwt((await redeemed.json()).access_token);
    expect(access).toMatchObject({ iss: ISSUER, sub: 'user-1', aud: MCP, client_id: 'app', scope: 'read' });
    // Once only.
    expect((await (await redeem()).json()).error).toBe('invalid_grant');
  });
});

/** A code of `alice` for `app` at the IdP, saved as its authorize endpoint would after login. */
async function mintCodeAt(grants: ReturnType<typeof memoryGrantStore>): Promise<string> {
  const code = `code-${crypto.randomUUID()}`;
  await grants.saveCode({
    codeHash: await hashSecret(code),
    clientId: 'app',
    userId: 'alice',
    grantId: crypto.randomUUID(),
    redirectUri: REDIRECT_URI,
    scope: 'openid',
    codeChallenge: PKCE_CHALLENGE,
    authTime: Date.now(),
    expiresAt: Date.now() + 60_000,
  });
  return code;
}
