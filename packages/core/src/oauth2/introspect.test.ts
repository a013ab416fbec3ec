import { hashClientSecret, memoryClientStore } from '@gatehousejs/core';
import { describe, expect, it } from 'vitest';
import { basic, ISSUER, issueTokens, post, testClients, testInstance } from '../../test/fixtures';

const DEMO_BASIC = { Authorization: basic('demo-client', 'demo-secret') };

describe('introspection endpoint (RFC 7662)', () => {
  it('describes an active access token', async () => {
    const t = await testInstance();
    const { access_token } = await issueTokens(t);
    const response = await t.gatehouse.fetch(
      post('/oauth2/v1/introspect', { token: access_token }, DEMO_BASIC),
    );
    expect(response.status).toBe(200);
    expect(response.headers.get('cache-control')).toBe('no-store');
    const body = await response.json();
    const now = Math.floor(t.clock.now() / 1000);
    expect(body).toMatchObject({
      active: true,
      token_type: 'Bearer',
      client_id: 'demo-client',
      sub: 'user-1',
      scope: 'read write',
      iss: ISSUER,
      iat: now,
      exp: now + 3600,
    });
  });

  it('describes an active refresh token', async () => {
    const t = await testInstance();
    const { refresh_token } = await issueTokens(t);
    const body = await (
      await t.gatehouse.fetch(post('/oauth2/v1/introspect', { token: refresh_token }, DEMO_BASIC))
    ).json();
    expect(body).toMatchObject({
      active: true,
      token_type: 'refresh_token',
      client_id: 'demo-client',
      sub: 'user-1',
    });
  });

  it('answers exactly {"active": false} for expired, revoked, unknown and foreign tokens', async () => {
    const t = await testInstance();
    const { access_token } = await issueTokens(t);
    const introspect = async (token: string, headers = DEMO_BASIC) =>
      (await t.gatehouse.fetch(post('/oauth2/v1/introspect', { token }, headers))).text();

    expect(await introspect('garbage')).toBe('{"active":false}');
    expect(await introspect(access_token, { Authorization: basic('other-client', 'other-secret') })).toBe(
      '{"active":false}',
    );
    t.clock.advance(3600 + 6);
    expect(await introspect(access_token)).toBe('{"active":false}');

    const fresh = await issueTokens(t);
    await t.gatehouse.fetch(post('/oauth2/v1/revoke', { token: fresh.access_token }, DEMO_BASIC));
    expect(await introspect(fresh.access_token)).toBe('{"active":false}');
  });

  it("answers a resource server's client about the access tokens for its resources only (introspects)", async () => {
    const MCP = 'http://localhost:3000/mcp';
    const resourceServerClient = async (id: string, resource: string) => ({
      id,
      type: 'confidential' as const,
      secretHash: await hashClientSecret(`${id}-secret`),
      grantTypes: [],
      redirectUris: [],
      introspects: [resource],
    });
    const t = await testInstance({
      resources: [MCP],
      clients: memoryClientStore([
        ...(await testClients()),
        await resourceServerClient('api-rs', `${ISSUER}/api/v1`),
        await resourceServerClient('mcp-rs', MCP),
      ]),
    });
    const { access_token, refresh_token } = await issueTokens(t);
    const ask = async (client: string, token: string) =>
      (
        await t.gatehouse.fetch(
          post('/oauth2/v1/introspect', { token }, { Authorization: basic(client, `${client}-secret`) }),
        )
      ).json();
    expect(await ask('api-rs', access_token)).toMatchObject({
      active: true,
      client_id: 'demo-client',
      aud: `${ISSUER}/api/v1`,
    });
    expect(await ask('mcp-rs', access_token)).toEqual({ active: false });
    // A refresh token is its holder's alone.
    expect(await ask('api-rs', refresh_token)).toEqual({ active: false });
  });

  it('is for confidential clients only', async () => {
    const t = await testInstance();
    const { access_token } = await issueTokens(t);
    const anonymous = await t.gatehouse.fetch(post('/oauth2/v1/introspect', { token: access_token }));
    expect(anonymous.status).toBe(401);
    const publicClient = await t.gatehouse.fetch(
      post('/oauth2/v1/introspect', { token: access_token, client_id: 'demo-spa' }),
    );
    expect(publicClient.status).toBe(401);
    expect(publicClient.headers.get('www-authenticate')).toMatch(/^Basic /);
    expect((await publicClient.json()).error).toBe('invalid_client');
  });
});

describe('inactive answers, explained to the operator (debug log)', () => {
  async function debugged(debug = true) {
    const lines: string[] = [];
    const resourceServer = {
      id: 'rs',
      type: 'confidential' as const,
      secretHash: await hashClientSecret('rs-secret'),
      grantTypes: [],
      redirectUris: [],
    };
    const t = await testInstance({
      debug,
      logger: { warn() {}, error() {}, debug: (line: string) => lines.push(line) },
      clients: memoryClientStore([...(await testClients()), resourceServer]),
    });
    const ask = async (token: string, client = 'demo-client', secret = 'demo-secret') =>
      (
        await t.gatehouse.fetch(
          post('/oauth2/v1/introspect', { token }, { Authorization: basic(client, secret) }),
        )
      ).text();
    return { t, lines, ask };
  }

  it('says why a resource server registered without introspects is answered {"active":false} for a valid token', async () => {
    const { t, lines, ask } = await debugged();
    const { access_token } = await issueTokens(t);
    expect(await ask(access_token, 'rs', 'rs-secret')).toBe('{"active":false}');
    expect(lines).toEqual([
      `gatehouse: refused POST /demo/oauth2/v1/introspect: 200 {"active":false}: client "rs" may not introspect this access token: it is not the token's client (client "demo-client"), and its introspects (none) names none of the token's audiences ("${ISSUER}/api/v1"); a resource server lists its audience in introspects`,
    ]);

    const quiet = await debugged(false);
    expect(await quiet.ask((await issueTokens(quiet.t)).access_token, 'rs', 'rs-secret')).toBe(
      '{"active":false}',
    );
    expect(quiet.lines).toEqual([]);
  });

  it('writes one line for every other inactive answer, naming why and never the token', async () => {
    const { t, lines, ask } = await debugged();
    const { access_token, refresh_token } = await issueTokens(t);
    const reasons: string[] = [];
    const expectInactive = async (token: string, reason: RegExp, client?: string) => {
      lines.length = 0;
      expect(await ask(token, client, client && `${client}-secret`)).toBe('{"active":false}');
      expect(lines).toHaveLength(1);
      expect(lines[0]).toMatch(
        /^gatehouse: refused POST \/demo\/oauth2\/v1\/introspect: 200 \{"active":false\}: /,
      );
      expect(lines[0]).toMatch(reason);
      expect(lines[0]).not.toContain(token);
      reasons.push(lines[0]!);
    };

    await expectInactive(
      'garbage',
      /no valid access token of this issuer .*no live refresh token has that value/,
    );
    await expectInactive(refresh_token, /a refresh token of client "demo-client": only its holder may/, 'rs');
    await t.gatehouse.fetch(post('/oauth2/v1/revoke', { token: access_token }, DEMO_BASIC));
    await expectInactive(access_token, /a revoked access token/);

    const fresh = await issueTokens(t);
    const rotated = await t.gatehouse.fetch(
      post(
        '/oauth2/v1/token',
        { grant_type: 'refresh_token', refresh_token: fresh.refresh_token },
        DEMO_BASIC,
      ),
    );
    expect(rotated.status).toBe(200);
    await expectInactive(fresh.refresh_token, /a refresh token that was rotated/);
    t.clock.advance(3600 + 6);
    await expectInactive(fresh.access_token, /an expired access token/);
    expect(new Set(reasons).size).toBe(reasons.length);
  });
});
