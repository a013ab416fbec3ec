import { isGatehouseClientError } from '@gatehousejs/client';
import { describe, expect, it } from 'vitest';
import { ISSUER, mintCode, REDIRECT_URI } from '../../core/test/fixtures';
import { harness, RESOURCE_PATH, signIn } from '../test/support';

async function sha256Base64Url(text: string): Promise<string> {
  const digest = new Uint8Array(await crypto.subtle.digest('SHA-256', new TextEncoder().encode(text)));
  return btoa(String.fromCharCode(...digest))
    .replace(/\+/g, '-')
    .replace(/\//g, '_')
    .replace(/=+$/, '');
}

describe('the authorization code flow', () => {
  it('builds the authorize URL with a fresh state and a PKCE S256 challenge', async () => {
    const h = await harness();
    const client = h.client({ clientId: 'demo-spa', clientSecret: undefined });
    const url = await client.authorizationUrl({ scope: 'openid tickets:read' });
    expect(url.origin + url.pathname).toBe(`${ISSUER}/oauth2/v1/authorize`);
    const p = url.searchParams;
    expect(p.get('response_type')).toBe('code');
    expect(p.get('client_id')).toBe('demo-spa');
    expect(p.get('redirect_uri')).toBe(REDIRECT_URI);
    expect(p.get('scope')).toBe('openid tickets:read');
    expect(p.get('code_challenge_method')).toBe('S256');
    expect(p.get('code_challenge')).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(p.get('state')?.length).toBeGreaterThanOrEqual(43);
    const second = await client.authorizationUrl();
    expect(second.searchParams.get('state')).not.toBe(p.get('state'));
    expect(second.searchParams.get('code_challenge')).not.toBe(p.get('code_challenge'));
    expect(second.searchParams.has('scope')).toBe(false);
  });

  it('exchanges the code with the same redirect_uri and the PKCE verifier, and stores the tokens (public client)', async () => {
    const h = await harness();
    const client = h.client({ clientId: 'demo-spa', clientSecret: undefined });
    const url = await client.authorizationUrl({ scope: 'read' });
    const code = await mintCode(h, {
      clientId: 'demo-spa',
      codeChallenge: url.searchParams.get('code_challenge'),
      scope: 'read',
    });
    const tokens = await client.handleCallback(
      `${REDIRECT_URI}?code=${code}&state=${url.searchParams.get('state')}&iss=${encodeURIComponent(ISSUER)}`,
    );
    expect(tokens.refreshToken).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(tokens.scope).toBe('read');
    const [exchange] = h.tokenCalls('authorization_code');
    const form = new URLSearchParams(exchange?.body);
    expect(form.get('redirect_uri')).toBe(REDIRECT_URI);
    expect(form.get('client_id')).toBe('demo-spa');
    expect(await sha256Base64Url(form.get('code_verifier') ?? '')).toBe(
      url.searchParams.get('code_challenge'),
    );
    expect(exchange?.authorization).toBeNull();
    expect(await client.getTokens()).toEqual(tokens);
  });

  it('authenticates a confidential client with HTTP Basic at the token endpoint', async () => {
    const h = await harness();
    const client = h.client();
    await signIn(h, client);
    expect(h.tokenCalls('authorization_code')[0]?.authorization).toMatch(/^Basic /);
    expect((await client.fetch(RESOURCE_PATH)).status).toBe(200);
  });

  it('refuses a callback whose state is not the pending one, without any token request', async () => {
    const h = await harness();
    const client = h.client();
    const url = await client.authorizationUrl();
    const code = await mintCode(h, { codeChallenge: url.searchParams.get('code_challenge') });
    for (const query of [`code=${code}&state=forged`, `code=${code}`]) {
      const error = await client.handleCallback(`${REDIRECT_URI}?${query}`).catch((e: unknown) => e);
      expect(isGatehouseClientError(error, 'state_mismatch')).toBe(true);
    }
    expect(h.tokenCalls('authorization_code')).toHaveLength(0);
    expect(await client.getTokens()).toBeNull();
  });

  it('accepts a callback once only', async () => {
    const h = await harness();
    const client = h.client();
    const url = await client.authorizationUrl();
    const code = await mintCode(h, { codeChallenge: url.searchParams.get('code_challenge') });
    const callback = `${REDIRECT_URI}?code=${code}&state=${url.searchParams.get('state')}&iss=${encodeURIComponent(ISSUER)}`;
    await client.handleCallback(callback);
    const error = await client.handleCallback(callback).catch((e: unknown) => e);
    expect(isGatehouseClientError(error, 'state_mismatch')).toBe(true);
    expect(h.tokenCalls('authorization_code')).toHaveLength(1);
  });

  it('turns an error callback into authorization_error with the OAuth error code', async () => {
    const h = await harness();
    const client = h.client();
    const state = (await client.authorizationUrl()).searchParams.get('state') ?? '';
    const error = await client
      .handleCallback(
        `${REDIRECT_URI}?error=access_denied&error_description=The+user+said+no&state=${state}&iss=${encodeURIComponent(ISSUER)}`,
      )
      .catch((e: unknown) => e);
    expect(isGatehouseClientError(error, 'authorization_error')).toBe(true);
    expect(error).toMatchObject({ error: 'access_denied', errorDescription: 'The user said no' });
    expect(h.seen).toHaveLength(0);
  });

  it('refuses a callback without iss, which Gatehouse always sends (RFC 9207 §2.4)', async () => {
    const h = await harness();
    const client = h.client();
    const url = await client.authorizationUrl();
    const code = await mintCode(h, { codeChallenge: url.searchParams.get('code_challenge') });
    const error = await client
      .handleCallback(`${REDIRECT_URI}?code=${code}&state=${url.searchParams.get('state')}`)
      .catch((e: unknown) => e);
    expect(isGatehouseClientError(error, 'issuer_mismatch')).toBe(true);
    expect(h.tokenCalls('authorization_code')).toHaveLength(0);
  });

  it('refuses a callback from another issuer (RFC 9207)', async () => {
    const h = await harness();
    const client = h.client();
    const url = await client.authorizationUrl();
    const code = await mintCode(h, { codeChallenge: url.searchParams.get('code_challenge') });
    const error = await client
      .handleCallback(
        `${REDIRECT_URI}?code=${code}&state=${url.searchParams.get('state')}&iss=https%3A%2F%2Fevil.example`,
      )
      .catch((e: unknown) => e);
    expect(isGatehouseClientError(error, 'issuer_mismatch')).toBe(true);
    expect(h.tokenCalls('authorization_code')).toHaveLength(0);
  });

  it('reports a refused code exchange as token_request_failed with the server error', async () => {
    const h = await harness();
    const client = h.client();
    const url = await client.authorizationUrl();
    // A code minted for another client: the server answers invalid_grant.
    const code = await mintCode(h, {
      clientId: 'other-client',
      codeChallenge: url.searchParams.get('code_challenge'),
    });
    const error = await client
      .handleCallback(
        `${REDIRECT_URI}?code=${code}&state=${url.searchParams.get('state')}&iss=${encodeURIComponent(ISSUER)}`,
      )
      .catch((e: unknown) => e);
    expect(isGatehouseClientError(error, 'token_request_failed')).toBe(true);
    expect(error).toMatchObject({ error: 'invalid_grant', status: 400 });
    expect(await client.getTokens()).toBeNull();
  });

  it('reports wrong client credentials as token_request_failed invalid_client', async () => {
    const h = await harness();
    const client = h.client({ clientSecret: 'wrong' });
    const error = await signIn(h, client).catch((e: unknown) => e);
    expect(isGatehouseClientError(error, 'token_request_failed')).toBe(true);
    expect(error).toMatchObject({ error: 'invalid_client', status: 401 });
  });
});
