/**
 * Conformance flows of DPoP (RFC 9449) and pushed authorization requests (RFC 9126), over real
 * HTTP against one instance: the answers clients rely on, the same on every adapter and runtime.
 * Registered by the flows of `flows.ts`, inside their describe block.
 */
import { createHash, generateKeyPairSync, randomUUID, sign } from 'node:crypto';
import { DEMO } from '@gatehousejs/demo';
import { expect, it } from 'vitest';
import { NAVIGATION, navigateSigningIn } from './code-flow.js';
import { CookieClient } from './harness.js';
import { basic, FORM, type InstanceClient } from './instance-client.js';

const b64url = (value: string | Buffer) => Buffer.from(value).toString('base64url');

/** A client DPoP key (ES256) and proofs signed with it, with node:crypto. */
function dpopKey() {
  const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  const { kty, crv, x, y } = publicKey.export({ format: 'jwk' });
  const jwk = { kty, crv, x, y };
  const proof = (claims: Record<string, unknown>, header: Record<string, unknown> = {}) => {
    const input = `${b64url(JSON.stringify({ typ: 'dpop+jwt', alg: 'ES256', jwk, ...header }))}.${b64url(
      JSON.stringify({ iat: Math.floor(Date.now() / 1000), jti: randomUUID(), ...claims }),
    )}`;
    return `${input}.${sign('sha256', Buffer.from(input), { key: privateKey, dsaEncoding: 'ieee-p1363' }).toString('base64url')}`;
  };
  return { proof };
}

const ath = (token: string) => b64url(createHash('sha256').update(token).digest());

/** Registers the DPoP and PAR flows against the instance of `client()`. */
export function dpopAndParFlows(client: () => InstanceClient): void {
  const error = async (response: Response) => ((await response.json()) as { error: string }).error;

  it('binds tokens to a DPoP key at the token endpoint, userinfo and the tickets API, and refuses them as Bearer', async () => {
    const c = client();
    const key = dpopKey();
    const { callback, verifier } = await c.signIn();
    const tokenUrl = c.at('/oauth2/v1/token');
    const response = await fetch(tokenUrl, {
      method: 'POST',
      headers: {
        'Content-Type': FORM,
        Authorization: basic(DEMO.client.id, DEMO.client.secret),
        DPoP: key.proof({ htm: 'POST', htu: tokenUrl }),
      },
      body: new URLSearchParams({
        grant_type: 'authorization_code',
        code: callback.get('code')!,
        redirect_uri: c.redirectUri,
        code_verifier: verifier,
      }),
    });
    expect(response.status).toBe(200);
    const tokens = (await response.json()) as { access_token: string; token_type: string };
    expect(tokens.token_type).toBe('DPoP');
    const userinfoUrl = c.at('/oauth2/v1/userinfo');
    const userinfo = await fetch(userinfoUrl, {
      headers: {
        Authorization: `DPoP ${tokens.access_token}`,
        DPoP: key.proof({ htm: 'GET', htu: userinfoUrl, ath: ath(tokens.access_token) }),
      },
    });
    expect(userinfo.status).toBe(200);
    const ticketsUrl = c.at('/api/v1/tickets');
    const tickets = await c.tickets({
      Authorization: `DPoP ${tokens.access_token}`,
      DPoP: key.proof({ htm: 'POST', htu: ticketsUrl, ath: ath(tokens.access_token) }),
    });
    expect(tickets.status).toBe(200);
    const asBearer = await c.tickets({ Authorization: `Bearer ${tokens.access_token}` });
    expect(asBearer.status).toBe(401);
    expect(asBearer.headers.get('www-authenticate')).toMatch(/DPoP realm=.*error="invalid_token".*algs="/);
    const noProof = await c.tickets({ Authorization: `DPoP ${tokens.access_token}` });
    expect(noProof.status).toBe(401);
    expect(noProof.headers.get('www-authenticate')).toMatch(/^DPoP .*error="invalid_dpop_proof"/);
  });

  it('refuses a DPoP proof that breaks any rule with 400 invalid_dpop_proof at the token endpoint', async () => {
    const c = client();
    const key = dpopKey();
    const tokenUrl = c.at('/oauth2/v1/token');
    const replayed = key.proof({ htm: 'POST', htu: tokenUrl });
    const now = Math.floor(Date.now() / 1000);
    const cases: [string, string][] = [
      ['wrong htm', key.proof({ htm: 'GET', htu: tokenUrl })],
      ['wrong htu', key.proof({ htm: 'POST', htu: c.at('/oauth2/v1/userinfo') })],
      ['wrong typ', key.proof({ htm: 'POST', htu: tokenUrl }, { typ: 'JWT' })],
      [
        'alg none',
        `${b64url(JSON.stringify({ typ: 'dpop+jwt', alg: 'none' }))}.${b64url(JSON.stringify({ htm: 'POST', htu: tokenUrl, iat: now, jti: randomUUID() }))}.`,
      ],
      ['old iat', key.proof({ htm: 'POST', htu: tokenUrl, iat: now - 3600 })],
      ['no jti', key.proof({ htm: 'POST', htu: tokenUrl, jti: undefined })],
      ['replayed', replayed],
      ['replayed', replayed],
    ];
    let first = true;
    for (const [name, proof] of cases) {
      const response = await fetch(tokenUrl, {
        method: 'POST',
        headers: {
          'Content-Type': FORM,
          Authorization: basic(DEMO.client.id, DEMO.client.secret),
          DPoP: proof,
        },
        body: new URLSearchParams({ grant_type: 'refresh_token', refresh_token: 'not-a-token' }),
      });
      // The first use of the replayed proof passes the proof check (and fails on the refresh token).
      const expected = name === 'replayed' && first ? 'invalid_grant' : 'invalid_dpop_proof';
      if (name === 'replayed') first = false;
      expect({ name, status: response.status, error: await error(response) }).toEqual({
        name,
        status: 400,
        error: expected,
      });
    }
  });

  it('pushes authorization requests: 201 request_uri, single use, client-bound, never the login page when refused', async () => {
    const c = client();
    const parUrl = c.at('/oauth2/v1/par');
    const verifier = b64url(randomUUID() + randomUUID());
    const request = {
      response_type: 'code',
      redirect_uri: c.redirectUri,
      scope: 'openid profile',
      state: 'par-state',
      code_challenge: b64url(createHash('sha256').update(verifier).digest()),
      code_challenge_method: 'S256',
    };
    const push = (form: Record<string, string>, authorization?: string) =>
      fetch(parUrl, {
        method: 'POST',
        headers: { 'Content-Type': FORM, ...(authorization ? { Authorization: authorization } : {}) },
        body: new URLSearchParams(form),
      });
    const parAuth = basic(DEMO.parClient.id, DEMO.parClient.secret);
    expect((await push(request, basic(DEMO.parClient.id, 'wrong'))).status).toBe(401);
    const unregistered = await push({ ...request, redirect_uri: 'https://evil.example/cb' }, parAuth);
    expect([unregistered.status, await error(unregistered)]).toEqual([400, 'invalid_request']);
    const { code_challenge: _c, code_challenge_method: _m, ...noPkce } = request;
    const publicNoPkce = await push({ ...noPkce, client_id: DEMO.publicClient.id });
    expect([publicNoPkce.status, await error(publicNoPkce)]).toEqual([400, 'invalid_request']);

    const plain = await fetch(
      `${c.at('/oauth2/v1/authorize')}?${new URLSearchParams({ client_id: DEMO.parClient.id, ...request })}`,
      { redirect: 'manual', headers: NAVIGATION },
    );
    expect(new URL(plain.headers.get('location')!).searchParams.get('error')).toBe('invalid_request');

    const pushed = await push(request, parAuth);
    expect(pushed.status).toBe(201);
    const { request_uri: requestUri, expires_in: expiresIn } = (await pushed.json()) as {
      request_uri: string;
      expires_in: number;
    };
    expect(requestUri).toMatch(/^urn:ietf:params:oauth:request_uri:[\w-]{16,}$/);
    expect(expiresIn).toBeGreaterThan(0);
    const authorize = (clientId: string) =>
      `${c.at('/oauth2/v1/authorize')}?${new URLSearchParams({ client_id: clientId, request_uri: requestUri })}`;
    const otherClient = await fetch(authorize(DEMO.client.id), { redirect: 'manual', headers: NAVIGATION });
    expect(otherClient.status).toBe(400);
    expect(otherClient.headers.get('location')).toBeNull();
    const { url } = await navigateSigningIn(
      new CookieClient(),
      authorize(DEMO.parClient.id),
      { username: DEMO.user.username, password: DEMO.user.password },
      (at) => at.href.startsWith(c.redirectUri),
    );
    expect(url.href).toContain('state=par-state');
    const exchanged = await c.tokenRequest(
      {
        grant_type: 'authorization_code',
        code: url.searchParams.get('code')!,
        redirect_uri: c.redirectUri,
        code_verifier: verifier,
      },
      parAuth,
    );
    expect(exchanged.status).toBe(200);
    const again = await fetch(authorize(DEMO.parClient.id), { redirect: 'manual', headers: NAVIGATION });
    expect(again.status).toBe(400);
    expect(await again.text()).not.toContain('name="password"');
  });
}
