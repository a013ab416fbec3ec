import { readFileSync } from 'node:fs';
import { createDemo, DEMO, demoApi } from '@gatehousejs/demo';
import { calculateJwkThumbprint, decodeJwt, importJWK, SignJWT } from 'jose';
import { describe, expect, it } from 'vitest';

const FORM = { 'Content-Type': 'application/x-www-form-urlencoded' };
const basic = (id: string, secret: string) => `Basic ${btoa(`${id}:${secret}`)}`;

/** The committed demo key of demo-jwt (a demo key, public to everyone). */
const privateJwk = JSON.parse(
  readFileSync(new URL('../keys/demo-jwt.private.jwk.json', import.meta.url), 'utf8'),
) as Record<string, string>;

describe('the demo clients of every authentication method', () => {
  it('registers the public half of the committed demo-jwt key', async () => {
    const { d: _private, ...publicHalf } = privateJwk;
    expect(await calculateJwkThumbprint(publicHalf)).toBe(
      await calculateJwkThumbprint(DEMO.jwtClient.publicJwk),
    );
    expect(DEMO.jwtClient.publicJwk).not.toHaveProperty('d');
  });

  it('gives demo-service and demo-jwt client tokens the tickets API accepts with tickets:read', async () => {
    const demo = await createDemo({ port: 3998, warn: () => {} });
    const token = async (headers: Record<string, string>, form: Record<string, string>) => {
      const response = await demo.gatehouse.fetch(
        new Request(`${demo.issuer}/oauth2/v1/token`, {
          method: 'POST',
          headers: { ...FORM, ...headers },
          body: new URLSearchParams({ grant_type: 'client_credentials', ...form }),
        }),
      );
      expect(response.status).toBe(200);
      const body = (await response.json()) as { access_token: string; refresh_token?: string };
      expect(body.refresh_token).toBeUndefined();
      return body.access_token;
    };
    const service = await token(
      { Authorization: basic(DEMO.serviceClient.id, DEMO.serviceClient.secret) },
      { scope: 'tickets:read' },
    );
    expect(decodeJwt(service)).toMatchObject({ sub: 'demo-service', sub_kind: 'client' });
    const assertion = await new SignJWT({})
      .setProtectedHeader({ alg: 'ES256', kid: privateJwk.kid! })
      .setIssuer(DEMO.jwtClient.id)
      .setSubject(DEMO.jwtClient.id)
      .setAudience(demo.issuer)
      .setIssuedAt()
      .setExpirationTime('1m')
      .setJti(crypto.randomUUID())
      .sign(await importJWK(privateJwk, 'ES256'));
    const jwtClientToken = await token(
      {},
      {
        client_assertion_type: 'urn:ietf:params:oauth:client-assertion-type:jwt-bearer',
        client_assertion: assertion,
        scope: 'profile',
      },
    );

    const api = demoApi(demo.gatehouse);
    const tickets = (accessToken: string) =>
      api(
        new Request(`${demo.issuer}/api/v1/tickets`, {
          method: 'POST',
          headers: { Authorization: `Bearer ${accessToken}`, 'Content-Type': 'application/json' },
          body: '{"limit":2}',
        }),
      );
    const listed = (await tickets(service))!;
    expect(listed.status).toBe(200);
    const { tickets: list } = (await listed.json()) as { tickets: { ownerSub: string }[] };
    expect(list[0]?.ownerSub).toBe('demo-service');
    // A client token without tickets:read is refused.
    const refused = (await tickets(jwtClientToken))!;
    expect(refused.status).toBe(403);
    expect(((await refused.json()) as { error: string }).error).toBe('insufficient_scope');
  });

  it('takes demo-post credentials in the body only', async () => {
    const demo = await createDemo({ port: 3997, warn: () => {} });
    const revoke = (headers: Record<string, string>, form: Record<string, string>) =>
      demo.gatehouse.fetch(
        new Request(`${demo.issuer}/oauth2/v1/revoke`, {
          method: 'POST',
          headers: { ...FORM, ...headers },
          body: new URLSearchParams({ token: 'unknown', ...form }),
        }),
      );
    expect(
      (await revoke({}, { client_id: DEMO.postClient.id, client_secret: DEMO.postClient.secret })).status,
    ).toBe(200);
    expect(
      (await revoke({ Authorization: basic(DEMO.postClient.id, DEMO.postClient.secret) }, {})).status,
    ).toBe(401);
  });

  it('seeds demo-par / demo-par-secret, which must push its requests (RFC 9126)', async () => {
    const demo = await createDemo({ port: 3997, warn: () => {} });
    const query = {
      response_type: 'code',
      redirect_uri: demo.redirectUri,
      scope: 'openid profile',
      state: 's',
      code_challenge: 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM',
      code_challenge_method: 'S256',
    };
    const plain = await demo.gatehouse.fetch(
      new Request(
        `${demo.issuer}/oauth2/v1/authorize?${new URLSearchParams({ client_id: DEMO.parClient.id, ...query })}`,
      ),
    );
    expect(new URL(plain.headers.get('location')!).searchParams.get('error')).toBe('invalid_request');
    const wrong = await demo.gatehouse.fetch(
      new Request(`${demo.issuer}/oauth2/v1/par`, {
        method: 'POST',
        headers: { ...FORM, Authorization: basic(DEMO.parClient.id, 'wrong') },
        body: new URLSearchParams(query),
      }),
    );
    expect(wrong.status).toBe(401);
    const pushed = await demo.gatehouse.fetch(
      new Request(`${demo.issuer}/oauth2/v1/par`, {
        method: 'POST',
        headers: { ...FORM, Authorization: basic(DEMO.parClient.id, DEMO.parClient.secret) },
        body: new URLSearchParams(query),
      }),
    );
    expect(pushed.status).toBe(201);
    const { request_uri: requestUri } = (await pushed.json()) as { request_uri: string };
    const start = await demo.gatehouse.fetch(
      new Request(
        `${demo.issuer}/oauth2/v1/authorize?${new URLSearchParams({ client_id: DEMO.parClient.id, request_uri: requestUri })}`,
      ),
    );
    // To the login page of the sign-in interaction, in the browser that started it.
    expect(start.status).toBe(303);
    const binding = start.headers.getSetCookie().map((cookie) => cookie.split(';')[0]!);
    const page = await demo.gatehouse.fetch(
      new Request(start.headers.get('location')!, { headers: { Cookie: binding.join('; ') } }),
    );
    expect(page.status).toBe(200);
    expect(await page.text()).toContain('name="password"');
  });
});
