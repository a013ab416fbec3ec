import { createServer, type Server } from 'node:http';
import {
  type ClientRecord,
  hashClientSecret,
  memoryClientStore,
  type TokenExchangeDecision,
  type TokenExchangeRequest,
} from '@gatehousejs/core';
import { defineOperations, resourceServer } from '@gatehousejs/core/protect';
import { decodeJwt, exportJWK, generateKeyPair, type JWK, SignJWT } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type DpopTestKey, dpopKey, dpopProof } from '../../../test/dpop';
import {
  authApiToken,
  basic,
  bearerPost,
  ISSUER,
  issueTokens,
  mintCode,
  PKCE_VERIFIER,
  post,
  REDIRECT_URI,
  type TestInstance,
  type TestOptions,
  testClients,
  testInstance,
} from '../../../test/fixtures';

const TOKEN = '/oauth2/v1/token';
const EXCHANGE = 'urn:ietf:params:oauth:grant-type:token-exchange';
const ACCESS = 'urn:ietf:params:oauth:token-type:access_token';
const ID_TOKEN = 'urn:ietf:params:oauth:token-type:id_token';
const JWT = 'urn:ietf:params:oauth:token-type:jwt';
const REPORTS = 'https://reports.example.com/api';
const MCP = 'https://example.com/mcp';
const FOREIGN = 'https://idp.partner.example';
const AGENT = { Authorization: basic('agent', 'agent-secret') };
const GATEWAY = { Authorization: basic('gateway', 'gateway-secret') };

/** A foreign issuer's key pair and its JWKS, served over loopback HTTP. */
let foreignKey: CryptoKey;
let jwksServer: Server;
let jwksUri: string;
let jwksRequests = 0;

beforeAll(async () => {
  const pair = await generateKeyPair('ES256', { extractable: true });
  foreignKey = pair.privateKey as CryptoKey;
  const jwk: JWK = { ...(await exportJWK(pair.publicKey)), kid: 'partner-1', alg: 'ES256', use: 'sig' };
  jwksServer = createServer((_request, response) => {
    jwksRequests++;
    response.writeHead(200, { 'Content-Type': 'application/jwk-set+json' });
    response.end(JSON.stringify({ keys: [jwk] }));
  });
  await new Promise<void>((resolve) => jwksServer.listen(0, '127.0.0.1', resolve));
  const address = jwksServer.address() as { port: number };
  jwksUri = `http://127.0.0.1:${address.port}/jwks`;
});

afterAll(() => new Promise<void>((resolve) => jwksServer.close(() => resolve())));

type Policy = (request: TokenExchangeRequest) => TokenExchangeDecision | null;

/**
 * The policy of these tests: `agent` may act for users at the MCP server with `read`; `gateway`
 * may narrow tokens for the reports API and impersonate there; partner users map to user-1.
 */
const defaultPolicy: Policy = ({ client, subject, actor, requested }) => {
  if (client.id === 'agent') {
    if (actor && actor.sub !== 'agent') return null;
    return { scope: 'read', audience: [MCP] };
  }
  if (client.id === 'gateway') {
    return {
      scope: ['read', 'write'],
      audience: [REPORTS, MCP],
      // Impersonation at the reports API only.
      impersonation: requested.audience.length === 0 || requested.audience.includes(REPORTS),
      ...(subject.local ? {} : { userId: 'user-1' }),
    };
  }
  return null;
};

async function setUp(policy: Policy = defaultPolicy, overrides: TestOptions = {}) {
  const extra: ClientRecord[] = [
    {
      id: 'agent',
      type: 'confidential',
      secretHash: await hashClientSecret('agent-secret'),
      grantTypes: [EXCHANGE, 'client_credentials'],
      scopes: ['read'],
      redirectUris: [],
    },
    {
      id: 'gateway',
      type: 'confidential',
      secretHash: await hashClientSecret('gateway-secret'),
      grantTypes: [EXCHANGE, 'authorization_code'],
      redirectUris: [REDIRECT_URI],
    },
  ];
  return testInstance({
    scopes: ['openid', 'read', 'write'],
    resources: [REPORTS, MCP],
    clients: memoryClientStore([...(await testClients()), ...extra]),
    tokenExchange: { policy },
    trustedIssuers: [{ issuer: FOREIGN, jwksUri }],
    clientJwks: { allowLoopback: true },
    ...overrides,
  });
}

async function exchange(
  t: TestInstance,
  form: Record<string, string>,
  headers: Record<string, string> = AGENT,
) {
  return t.gatehouse.fetch(post(TOKEN, { grant_type: EXCHANGE, ...form }, headers));
}

async function expectError(response: Response, error: string, status = 400) {
  const body = await response.json();
  expect({ status: response.status, error: body.error }).toEqual({ status, error });
}

async function clientToken(t: TestInstance): Promise<string> {
  const response = await t.gatehouse.fetch(
    post(TOKEN, { grant_type: 'client_credentials', scope: 'read' }, AGENT),
  );
  return ((await response.json()) as { access_token: string }).access_token;
}

/** An ID token of user-1 issued to `clientId` (a code flow with openid). */
async function signedIdToken(t: TestInstance, clientId: string): Promise<string> {
  const code = await mintCode(t, { clientId, scope: 'openid read' });
  const response = await t.gatehouse.fetch(
    post(
      TOKEN,
      { grant_type: 'authorization_code', code, redirect_uri: REDIRECT_URI, code_verifier: PKCE_VERIFIER },
      GATEWAY,
    ),
  );
  const body = (await response.json()) as { id_token?: string };
  if (!body.id_token) throw new Error(`no ID token: ${JSON.stringify(body)}`);
  return body.id_token;
}

/** A JWT of the foreign issuer, valid now on the instance's clock. */
function foreignJwt(t: TestInstance, claims: Record<string, unknown> = {}, aud = ISSUER, typ = 'JWT') {
  const now = Math.floor(t.clock.now() / 1000);
  return new SignJWT({ scope: 'read', ...claims })
    .setProtectedHeader({ alg: 'ES256', kid: 'partner-1', typ })
    .setIssuer(FOREIGN)
    .setSubject('partner-user-7')
    .setAudience(aud)
    .setIssuedAt(now)
    .setExpirationTime(now + 600)
    .setJti(crypto.randomUUID())
    .sign(foreignKey);
}

describe('token exchange (RFC 8693)', () => {
  it("exchanges a user's access token for a narrower one at another resource, naming the client in act", async () => {
    const t = await setUp();
    const { access_token: userToken } = await issueTokens(t, 'read write');
    const response = await exchange(t, {
      subject_token: userToken,
      subject_token_type: ACCESS,
      resource: MCP,
    });
    expect(response.status).toBe(200);
    expect(response.headers.get('cache-control')).toBe('no-store');
    const body = await response.json();
    // §2.2.1: issued_token_type, token_type, no refresh token.
    expect(body).toMatchObject({ issued_token_type: ACCESS, token_type: 'Bearer', scope: 'read' });
    expect(body.refresh_token).toBeUndefined();
    const claims = decodeJwt(body.access_token);
    expect(claims).toMatchObject({
      sub: 'user-1',
      aud: MCP,
      client_id: 'agent',
      scope: 'read',
      act: { sub: 'agent', sub_kind: 'client' },
    });
    // It keeps the user's grant: revoking it ends the exchanged token too.
    expect(claims.gid).toBe(decodeJwt(userToken).gid);
  });

  it('shows act to introspection, the bearer check and resourceServer()', async () => {
    // On the real clock: resourceServer() verifies with it.
    const t = await setUp(defaultPolicy, { now: Date.now, authApi: { scope: 'read' } });
    // An Auth API token of the user: a subject token like any other of this instance.
    const userToken = await authApiToken(t);
    const token = (
      await (
        await exchange(t, { subject_token: userToken, subject_token_type: ACCESS, resource: MCP })
      ).json()
    ).access_token as string;
    const introspection = await (
      await t.gatehouse.fetch(post('/oauth2/v1/introspect', { token }, AGENT))
    ).json();
    expect(introspection).toMatchObject({ active: true, sub: 'user-1', act: { sub: 'agent' } });
    const api = defineOperations(t.gatehouse, {
      'POST /mcp': {
        schemes: ['bearer'],
        resource: MCP,
        scope: 'read',
        handler: async (_request, caller) => Response.json(caller.act ?? null),
      },
    });
    const answered = await api(bearerPost('/mcp', token));
    expect(await answered?.json()).toEqual({ sub: 'agent', sub_kind: 'client' });
    const jwks = await (await t.gatehouse.fetch(new Request(`${ISSUER}/oauth2/v1/keys`))).json();
    const remote = resourceServer({ issuer: ISSUER, resource: MCP, jwks });
    const result = await remote.authenticate(
      new Request(MCP, { headers: { Authorization: `Bearer ${token}` } }),
    );
    expect(result.ok && result.caller.act).toEqual({ sub: 'agent', sub_kind: 'client' });
  });

  it('nests the delegation chain: a delegated token exchanged again keeps its prior actor inside', async () => {
    const t = await setUp();
    const { access_token: userToken } = await issueTokens(t, 'read');
    const first = (
      await (
        await exchange(t, { subject_token: userToken, subject_token_type: ACCESS, resource: MCP })
      ).json()
    ).access_token as string;
    // The gateway exchanges the agent's delegated token again for the MCP server, as itself.
    const response = await exchange(
      t,
      { subject_token: first, subject_token_type: ACCESS, resource: MCP, scope: 'read' },
      GATEWAY,
    );
    expect(response.status).toBe(200);
    const second = (await response.json()).access_token as string;
    expect(decodeJwt(second).act).toEqual({
      sub: 'gateway',
      sub_kind: 'client',
      act: { sub: 'agent', sub_kind: 'client' },
    });
    // With an actor_token: the actor's subject is the current actor, the chain nested inside.
    const agentToken = await clientToken(t);
    const withActor = await exchange(t, {
      subject_token: first,
      subject_token_type: ACCESS,
      actor_token: agentToken,
      actor_token_type: ACCESS,
      resource: MCP,
    });
    expect(withActor.status).toBe(200);
    expect(decodeJwt((await withActor.json()).access_token).act).toEqual({
      sub: 'agent',
      sub_kind: 'client',
      act: { sub: 'agent', sub_kind: 'client' },
    });
  });

  it('refuses to widen the scope (invalid_scope) or the audience (invalid_target)', async () => {
    const t = await setUp();
    const { access_token: readOnly } = await issueTokens(t, 'read');
    // The policy allows the agent `read` only.
    await expectError(
      await exchange(t, {
        subject_token: readOnly,
        subject_token_type: ACCESS,
        resource: MCP,
        scope: 'read write',
      }),
      'invalid_scope',
    );
    // The gateway's policy allows write, but the subject token does not carry it.
    await expectError(
      await exchange(
        t,
        { subject_token: readOnly, subject_token_type: ACCESS, resource: REPORTS, scope: 'write' },
        GATEWAY,
      ),
      'invalid_scope',
    );
    // An audience the policy does not allow the agent, and one the instance does not know.
    await expectError(
      await exchange(t, { subject_token: readOnly, subject_token_type: ACCESS, resource: REPORTS }),
      'invalid_target',
    );
    await expectError(
      await exchange(
        t,
        { subject_token: readOnly, subject_token_type: ACCESS, audience: 'https://elsewhere.example' },
        GATEWAY,
      ),
      'invalid_target',
    );
    // Without a request: exactly what the policy allows and the subject carries.
    const narrowed = await exchange(t, { subject_token: readOnly, subject_token_type: ACCESS }, GATEWAY);
    expect(await narrowed.json()).toMatchObject({ scope: 'read' });
  });

  it('impersonates only when the policy says so, never dropping actors already on record', async () => {
    const t = await setUp();
    const { access_token: userToken } = await issueTokens(t, 'read');
    // The agent's policy does not allow impersonation: its token names it.
    const agent = await exchange(t, { subject_token: userToken, subject_token_type: ACCESS, resource: MCP });
    const delegated = (await agent.json()).access_token as string;
    expect(decodeJwt(delegated).act).toEqual({ sub: 'agent', sub_kind: 'client' });
    // The gateway's does: without an actor_token, no act of its own.
    const impersonated = await exchange(
      t,
      { subject_token: userToken, subject_token_type: ACCESS, resource: REPORTS },
      GATEWAY,
    );
    expect(decodeJwt((await impersonated.json()).access_token).act).toBeUndefined();
    // Impersonating with a delegated token keeps its chain: the agent cannot be laundered away.
    const kept = await exchange(
      t,
      { subject_token: delegated, subject_token_type: ACCESS, resource: REPORTS },
      GATEWAY,
    );
    expect(decodeJwt((await kept.json()).access_token).act).toEqual({ sub: 'agent', sub_kind: 'client' });
    // An actor the policy refuses (another client's token as actor): unauthorized_client.
    const { access_token: otherUser } = await issueTokens(t, 'read');
    await expectError(
      await exchange(t, {
        subject_token: userToken,
        subject_token_type: ACCESS,
        actor_token: otherUser,
        actor_token_type: ACCESS,
        resource: MCP,
      }),
      'unauthorized_client',
    );
  });

  it('refuses invalid, revoked and mistyped subject tokens (invalid_request) and clients the policy refuses', async () => {
    const t = await setUp();
    const { access_token: userToken } = await issueTokens(t, 'read');
    await expectError(
      await exchange(t, { subject_token: 'not-a-token', subject_token_type: ACCESS }),
      'invalid_request',
    );
    await expectError(
      await exchange(t, { subject_token: userToken, subject_token_type: ID_TOKEN }),
      'invalid_request',
    );
    await expectError(
      await exchange(t, { subject_token: userToken, subject_token_type: 'urn:x:unknown' }),
      'invalid_request',
    );
    await expectError(await exchange(t, { subject_token: userToken }), 'invalid_request');
    await expectError(
      await exchange(t, { subject_token: userToken, subject_token_type: ACCESS, actor_token: userToken }),
      'invalid_request',
    );
    // Revocation is consulted, as by the bearer check.
    await t.gatehouse.fetch(
      post('/oauth2/v1/revoke', { token: userToken }, { Authorization: basic('demo-client', 'demo-secret') }),
    );
    await expectError(
      await exchange(t, { subject_token: userToken, subject_token_type: ACCESS, resource: MCP }),
      'invalid_request',
    );
    // Another client's token for itself: only that client may exchange it.
    const agentOwn = await clientToken(t);
    await expectError(
      await exchange(t, { subject_token: agentOwn, subject_token_type: ACCESS, resource: REPORTS }, GATEWAY),
      'invalid_request',
    );
    // A client the policy refuses, and one not registered for the grant.
    const { access_token: fresh } = await issueTokens(t, 'read');
    await expectError(
      await exchange(
        t,
        { subject_token: fresh, subject_token_type: ACCESS },
        { Authorization: basic('other-client', 'other-secret') },
      ),
      'unauthorized_client',
    );
  });

  it('exchanges an ID token issued to the client asking, and nobody else’s', async () => {
    const t = await setUp();
    const idToken = await signedIdToken(t, 'gateway');
    const response = await exchange(
      t,
      { subject_token: idToken, subject_token_type: ID_TOKEN, resource: REPORTS },
      GATEWAY,
    );
    expect(response.status).toBe(200);
    // No scope in an ID token to bound the new one: the policy's.
    expect(decodeJwt((await response.json()).access_token)).toMatchObject({
      sub: 'user-1',
      scope: 'read write',
    });
    // Issued to the gateway: the agent cannot exchange it.
    await expectError(
      await exchange(t, { subject_token: idToken, subject_token_type: ID_TOKEN, resource: MCP }),
      'invalid_request',
    );
    // Expired: refused, although it would still do as an id_token_hint.
    t.clock.advance(3700);
    await expectError(
      await exchange(t, { subject_token: idToken, subject_token_type: ID_TOKEN }, GATEWAY),
      'invalid_request',
    );
    // demo-client is not registered for token exchange.
    await expectError(
      await exchange(
        t,
        { subject_token: idToken, subject_token_type: ID_TOKEN },
        { Authorization: basic('demo-client', 'demo-secret') },
      ),
      'unauthorized_client',
    );
  });

  it('verifies a trusted issuer’s JWT by its JWKS (fetched over HTTP, cached) and maps its user', async () => {
    const t = await setUp();
    const before = jwksRequests;
    const foreign = await foreignJwt(t);
    const response = await exchange(
      t,
      { subject_token: foreign, subject_token_type: JWT, resource: REPORTS },
      GATEWAY,
    );
    expect(response.status).toBe(200);
    const claims = decodeJwt((await response.json()).access_token);
    expect(claims).toMatchObject({ sub: 'user-1', aud: REPORTS, client_id: 'gateway', scope: 'read write' });
    expect(claims.act).toBeUndefined();
    expect(jwksRequests).toBe(before + 1);
    // Cached: a second exchange fetches nothing.
    expect(
      (await exchange(t, { subject_token: await foreignJwt(t), subject_token_type: JWT }, GATEWAY)).status,
    ).toBe(200);
    expect(jwksRequests).toBe(before + 1);
    // Another audience, a forged signature, an unknown issuer: refused.
    await expectError(
      await exchange(
        t,
        { subject_token: await foreignJwt(t, {}, 'https://other.example'), subject_token_type: JWT },
        GATEWAY,
      ),
      'invalid_request',
    );
    const [header, payload] = foreign.split('.');
    const forged = `${header}.${payload}.${'A'.repeat(86)}`;
    await expectError(
      await exchange(t, { subject_token: forged, subject_token_type: JWT }, GATEWAY),
      'invalid_request',
    );
    const unknown = await new SignJWT({})
      .setProtectedHeader({ alg: 'ES256', kid: 'partner-1' })
      .setIssuer('https://unknown.example')
      .setSubject('x')
      .setAudience(ISSUER)
      .setExpirationTime(Math.floor(t.clock.now() / 1000) + 60)
      .sign(foreignKey);
    await expectError(
      await exchange(t, { subject_token: unknown, subject_token_type: JWT }, GATEWAY),
      'invalid_request',
    );
    // A policy naming no local user for a foreign subject: refused.
    await expectError(
      await exchange(t, { subject_token: await foreignJwt(t), subject_token_type: JWT, resource: MCP }),
      'invalid_request',
    );
  });

  it('is unsupported where tokenExchange is off, and listed in the metadata where it is on', async () => {
    const off = await testInstance();
    const response = await off.gatehouse.fetch(
      post(
        TOKEN,
        { grant_type: EXCHANGE, subject_token: 'x', subject_token_type: ACCESS },
        { Authorization: basic('demo-client', 'demo-secret') },
      ),
    );
    await expectError(response, 'unsupported_grant_type');
    const metadata = async (instance: TestInstance) =>
      (
        await (
          await instance.gatehouse.fetch(new Request(`${ISSUER}/.well-known/oauth-authorization-server`))
        ).json()
      ).grant_types_supported as string[];
    expect(await metadata(off)).not.toContain(EXCHANGE);
    expect(await metadata(await setUp())).toContain(EXCHANGE);
  });
});

describe('token exchange without a scope to grant', () => {
  it('answers invalid_scope, never a token with an empty scope (RFC 6749 section 5.2)', async () => {
    // The policy allows the MCP audience but no scope at all.
    const t = await setUp(({ client }) => (client.id === 'agent' ? { audience: [MCP] } : null));
    const { access_token: userToken } = await issueTokens(t, 'read');
    await expectError(
      await exchange(t, { subject_token: userToken, subject_token_type: ACCESS, resource: MCP }),
      'invalid_scope',
    );
    // Allowed scopes the subject does not carry leave nothing either.
    const u = await setUp(({ client }) =>
      client.id === 'agent' ? { scope: 'write', audience: [MCP] } : null,
    );
    const { access_token: readOnly } = await issueTokens(u, 'read');
    await expectError(
      await exchange(u, { subject_token: readOnly, subject_token_type: ACCESS, resource: MCP }),
      'invalid_scope',
    );
  });
});

describe('token exchange of a DPoP-bound subject token (RFC 9449)', () => {
  const proofFor = (t: TestInstance, key: DpopTestKey) =>
    dpopProof(key, 'POST', ISSUER + TOKEN, t.clock.now());

  /** The agent's own client credentials token, bound to `key` (`cnf.jkt`) by a proof. */
  async function boundToken(t: TestInstance, key: DpopTestKey): Promise<string> {
    const response = await t.gatehouse.fetch(
      post(
        TOKEN,
        { grant_type: 'client_credentials', scope: 'read' },
        { ...AGENT, DPoP: await proofFor(t, key) },
      ),
    );
    const body = (await response.json()) as { access_token: string; token_type: string };
    expect(body.token_type).toBe('DPoP');
    expect(decodeJwt(body.access_token).cnf).toEqual({ jkt: key.jkt });
    return body.access_token;
  }

  const form = (subject: string) => ({ subject_token: subject, subject_token_type: ACCESS, resource: MCP });

  it('refuses a bound subject token sent without a proof (invalid_request)', async () => {
    const t = await setUp();
    const key = await dpopKey();
    const response = await exchange(t, form(await boundToken(t, key)));
    const body = await response.json();
    expect({ status: response.status, error: body.error }).toEqual({ status: 400, error: 'invalid_request' });
    expect(body.error_description).toMatch(/DPoP-bound/);
  });

  it('refuses a proof made with another key (invalid_dpop_proof)', async () => {
    const t = await setUp();
    const key = await dpopKey();
    const subject = await boundToken(t, key);
    const other = await dpopKey();
    await expectError(
      await exchange(t, form(subject), { ...AGENT, DPoP: await proofFor(t, other) }),
      'invalid_dpop_proof',
    );
  });

  it('issues a token bound to the same key with a proof of the subject token’s key', async () => {
    const t = await setUp();
    const key = await dpopKey();
    const response = await exchange(t, form(await boundToken(t, key)), {
      ...AGENT,
      DPoP: await proofFor(t, key),
    });
    expect(response.status).toBe(200);
    const body = await response.json();
    expect(body).toMatchObject({ issued_token_type: ACCESS, token_type: 'DPoP', scope: 'read' });
    expect(decodeJwt(body.access_token)).toMatchObject({ aud: MCP, cnf: { jkt: key.jkt } });
  });

  it('issues a bearer token where the policy says dpopBoundSubject: "issue-bearer"', async () => {
    const t = await setUp((request) => {
      const decision = defaultPolicy(request);
      return decision && { ...decision, dpopBoundSubject: 'issue-bearer' };
    });
    const key = await dpopKey();
    const subject = await boundToken(t, key);
    const response = await exchange(t, form(subject));
    expect(response.status).toBe(200);
    const body = await response.json();
    expect(body.token_type).toBe('Bearer');
    expect(decodeJwt(body.access_token).cnf).toBeUndefined();
  });

  it('holds a trusted issuer’s bound JWT to the same rule, and refuses a confirmation it cannot check', async () => {
    const t = await setUp();
    const key = await dpopKey();
    const bound = await foreignJwt(t, { cnf: { jkt: key.jkt } });
    const foreignForm = { subject_token: bound, subject_token_type: JWT, resource: REPORTS };
    await expectError(await exchange(t, foreignForm, GATEWAY), 'invalid_request');
    const response = await exchange(t, foreignForm, { ...GATEWAY, DPoP: await proofFor(t, key) });
    expect(response.status).toBe(200);
    expect(decodeJwt((await response.json()).access_token).cnf).toEqual({ jkt: key.jkt });
    // mTLS-bound (RFC 8705 §3.1): no DPoP proof can stand for it.
    const mtls = await foreignJwt(t, { cnf: { 'x5t#S256': 'bwcK0esc3ACC3DB2Y5_lESsXE8o9ltc05O89jdN-dg2' } });
    await expectError(
      await exchange(
        t,
        { subject_token: mtls, subject_token_type: JWT },
        { ...GATEWAY, DPoP: await proofFor(t, key) },
      ),
      'invalid_request',
    );
  });
});

describe('the typ of a trusted issuer’s exchanged JWT (RFC 8725 section 3.11)', () => {
  const exchangeTyped = async (t: TestInstance, typ: string) =>
    exchange(t, { subject_token: await foreignJwt(t, {}, ISSUER, typ), subject_token_type: JWT }, GATEWAY);

  it('refuses an ID-JAG as a subject, however often it is presented, and other JWTs made for another use', async () => {
    const t = await setUp();
    for (let attempt = 0; attempt < 2; attempt++) {
      const response = await exchangeTyped(t, 'oauth-id-jag+jwt');
      const body = await response.json();
      expect({ status: response.status, error: body.error }).toEqual({
        status: 400,
        error: 'invalid_request',
      });
      expect(body.error_description).toMatch(/type \(typ\) made for another use/);
    }
    for (const typ of ['logout+jwt', 'application/secevent+jwt', 'dpop+jwt', 'example+jwt'])
      await expectError(await exchangeTyped(t, typ), 'invalid_request');
  });

  it('accepts untyped JWTs, JWT and RFC 9068 access tokens, and the types the issuer lists in exchangeTyps', async () => {
    const t = await setUp();
    for (const typ of ['JWT', 'at+jwt', 'application/AT+JWT'])
      expect((await exchangeTyped(t, typ)).status).toBe(200);
    const untyped = await new SignJWT({ scope: 'read' })
      .setProtectedHeader({ alg: 'ES256', kid: 'partner-1' })
      .setIssuer(FOREIGN)
      .setSubject('partner-user-7')
      .setAudience(ISSUER)
      .setExpirationTime(Math.floor(t.clock.now() / 1000) + 60)
      .sign(foreignKey);
    expect((await exchange(t, { subject_token: untyped, subject_token_type: JWT }, GATEWAY)).status).toBe(
      200,
    );
    const listed = await setUp(defaultPolicy, {
      trustedIssuers: [{ issuer: FOREIGN, jwksUri, exchangeTyps: ['JWT', 'example+jwt'] }],
    });
    expect((await exchangeTyped(listed, 'example+jwt')).status).toBe(200);
    await expectError(await exchangeTyped(listed, 'at+jwt'), 'invalid_request');
  });
});
