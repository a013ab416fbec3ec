/**
 * Conformance flows of client authentication (RFC 6749 §2.3, §3.2, §4.4, RFC 7523, RFC 7009 §2.1)
 * against the demo's clients of every method, at one instance (the clients are the same on every
 * demo instance): registered by the flows of `flows.ts`, inside their describe block.
 */
import { createPrivateKey, randomUUID, sign } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { DEMO } from '@gatehousejs/demo';
import { expect, it } from 'vitest';

const FORM = 'application/x-www-form-urlencoded';
const basic = (id: string, secret: string) =>
  `Basic ${Buffer.from(`${encodeURIComponent(id)}:${encodeURIComponent(secret)}`).toString('base64')}`;

/** demo-jwt's committed demo key (public to everyone; a demo key, never a pattern). */
const DEMO_JWT_KEY = JSON.parse(
  readFileSync(new URL('../../demo/keys/demo-jwt.private.jwk.json', import.meta.url), 'utf8'),
) as { kid: string };
const JWT_BEARER = 'urn:ietf:params:oauth:client-assertion-type:jwt-bearer';

/** A private_key_jwt assertion of demo-jwt (RFC 7523 §3), ES256 with node:crypto. */
function demoJwtAssertion(aud: string, claims: Record<string, unknown> = {}): string {
  const now = Math.floor(Date.now() / 1000);
  const part = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');
  const input = `${part({ alg: 'ES256', kid: DEMO_JWT_KEY.kid })}.${part({
    iss: DEMO.jwtClient.id,
    sub: DEMO.jwtClient.id,
    aud,
    iat: now,
    exp: now + 60,
    jti: randomUUID(),
    ...claims,
  })}`;
  const key = createPrivateKey({ key: DEMO_JWT_KEY, format: 'jwk' });
  return `${input}.${sign('sha256', Buffer.from(input), { key, dsaEncoding: 'ieee-p1363' }).toString('base64url')}`;
}

/** Registers the client authentication flows against the instance whose issuer is `issuer()`. */
export function clientAuthenticationFlows(issuer: () => string): void {
  const at = (path: string) => issuer() + path;

  it('authenticates each client by its registered method only, one method per request (RFC 6749 §2.3)', async () => {
    const token = (form: Record<string, string>, headers: Record<string, string> = {}) =>
      fetch(at('/oauth2/v1/token'), {
        method: 'POST',
        headers: { 'Content-Type': FORM, ...headers },
        body: new URLSearchParams({ grant_type: 'client_credentials', scope: 'tickets:read', ...form }),
      });
    const serviceBasic = basic(DEMO.serviceClient.id, DEMO.serviceClient.secret);
    // client_secret_basic, with the empty client_secret= some libraries add (RFC 6749 §3.2: omitted).
    const service = await token(
      { client_id: DEMO.serviceClient.id, client_secret: '' },
      { Authorization: serviceBasic },
    );
    expect(service.status).toBe(200);
    const serviceTokens = (await service.json()) as { access_token: string; refresh_token?: string };
    expect(serviceTokens.refresh_token).toBeUndefined();
    // private_key_jwt, single use.
    const assertion = demoJwtAssertion(issuer());
    const signed = await token({ client_assertion_type: JWT_BEARER, client_assertion: assertion });
    expect(signed.status).toBe(200);
    const replay = await token({ client_assertion_type: JWT_BEARER, client_assertion: assertion });
    expect(replay.status).toBe(401);
    expect((await replay.json()).error).toBe('invalid_client');
    const wrongAudience = await token({
      client_assertion_type: JWT_BEARER,
      client_assertion: demoJwtAssertion('https://elsewhere.example'),
    });
    expect(wrongAudience.status).toBe(401);
    // Another method than the registered one, and two methods at once.
    const wrongMethod = await token({
      client_id: DEMO.serviceClient.id,
      client_secret: DEMO.serviceClient.secret,
    });
    expect(wrongMethod.status).toBe(401);
    expect(wrongMethod.headers.get('www-authenticate')).toMatch(/^Basic realm=/);
    const twoMethods = await token(
      { client_id: DEMO.serviceClient.id, client_secret: DEMO.serviceClient.secret },
      { Authorization: serviceBasic },
    );
    expect(twoMethods.status).toBe(400);
    expect((await twoMethods.json()).error).toBe('invalid_request');
    // client_secret_post, at the revocation endpoint: another client's token is refused, and stays active.
    const revokeForeign = await fetch(at('/oauth2/v1/revoke'), {
      method: 'POST',
      headers: { 'Content-Type': FORM },
      body: new URLSearchParams({
        token: serviceTokens.access_token,
        client_id: DEMO.postClient.id,
        client_secret: DEMO.postClient.secret,
      }),
    });
    expect(revokeForeign.status).toBe(400);
    expect((await revokeForeign.json()).error).toBe('invalid_grant');
    // The service's token works at the tickets API, as a client caller.
    const tickets = await fetch(at('/api/v1/tickets'), {
      method: 'POST',
      headers: {
        Authorization: `Bearer ${serviceTokens.access_token}`,
        'Content-Type': 'application/json',
      },
      body: '{"limit":1}',
    });
    expect(tickets.status).toBe(200);
    expect((await tickets.json()).tickets[0].ownerSub).toBe(DEMO.serviceClient.id);
  });
}
