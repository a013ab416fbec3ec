/**
 * DPoP (RFC 9449) and pushed authorization requests (RFC 9126) over HTTP against the demo server
 * (`pnpm start`'s), with the client libraries real apps use: oauth4webapi (a public client,
 * `demo-spa`, with DPoP and PAR; the confidential `demo-par`, which must push) and openid-client v6
 * (`demo-client` with DPoP through `buildAuthorizationUrlWithPAR`). Each runs the code flow, a
 * refresh, userinfo and the demo's tickets API; plus the refusals a client relies on.
 */
import { DEMO } from '@gatehousejs/demo';
import * as oauth from 'oauth4webapi';
import * as client from 'openid-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { navigateSigningIn } from '../../conformance/src/code-flow';
import { CookieClient } from '../../conformance/src/harness';
import { type DemoServer, startDemoServer } from './support/demo-server';

const USER = { username: DEMO.user.username, password: DEMO.user.password };
const options = { [oauth.allowInsecureRequests]: true } as const;

describe('DPoP and PAR over HTTP with oauth4webapi and openid-client', () => {
  let server: DemoServer;
  let as: oauth.AuthorizationServer;
  let redirectUri: string;
  let ticketsUrl: string;

  beforeAll(async () => {
    server = await startDemoServer();
    const issuer = new URL(server.issuer);
    as = await oauth
      .discoveryRequest(issuer, { ...options, algorithm: 'oidc' })
      .then((response) => oauth.processDiscoveryResponse(issuer, response));
    redirectUri = `${server.origin}/callback`;
    ticketsUrl = `${server.issuer}/api/v1/tickets`;
  }, 30_000);

  afterAll(async () => {
    await server?.stop();
  });

  /** Pushes, signs in through the login page with only client_id and request_uri, returns the callback. */
  async function pushAndSignIn(
    oauthClient: oauth.Client,
    clientAuth: oauth.ClientAuth,
    params: Record<string, string>,
    dpop?: oauth.DPoPHandle,
  ): Promise<URL> {
    const pushed = await oauth.processPushedAuthorizationResponse(
      as,
      oauthClient,
      await oauth.pushedAuthorizationRequest(as, oauthClient, clientAuth, params, {
        ...options,
        ...(dpop ? { DPoP: dpop } : {}),
      }),
    );
    expect(pushed.request_uri).toMatch(/^urn:ietf:params:oauth:request_uri:[\w-]{16,}$/);
    const authorize = new URL(as.authorization_endpoint!);
    authorize.searchParams.set('client_id', oauthClient.client_id);
    authorize.searchParams.set('request_uri', pushed.request_uri);
    const { url } = await navigateSigningIn(new CookieClient(), authorize.href, USER, (at) =>
      at.href.startsWith(redirectUri),
    );
    return url;
  }

  const ticketsCall = (token: string, dpop?: oauth.DPoPHandle) =>
    oauth.protectedResourceRequest(
      token,
      'POST',
      new URL(ticketsUrl),
      new Headers({ 'Content-Type': 'application/json' }),
      JSON.stringify({ limit: 3 }),
      { ...options, ...(dpop ? { DPoP: dpop } : {}) },
    );

  it('advertises PAR and DPoP in the metadata', () => {
    expect(as.pushed_authorization_request_endpoint).toBe(`${server.issuer}/oauth2/v1/par`);
    expect(as.dpop_signing_alg_values_supported).toContain('ES256');
  });

  it('oauth4webapi: a public client with DPoP and PAR runs the code flow, refresh, userinfo and tickets API', async () => {
    const spa: oauth.Client = { client_id: DEMO.publicClient.id };
    const none = oauth.None();
    const keyPair = await oauth.generateKeyPair('ES256');
    const dpop = oauth.DPoP(spa, keyPair);
    const verifier = oauth.generateRandomCodeVerifier();
    const state = oauth.generateRandomState();
    const nonce = oauth.generateRandomNonce();
    const callback = await pushAndSignIn(
      spa,
      none,
      {
        redirect_uri: redirectUri,
        response_type: 'code',
        scope: 'openid profile offline_access',
        state,
        nonce,
        code_challenge: await oauth.calculatePKCECodeChallenge(verifier),
        code_challenge_method: 'S256',
      },
      dpop,
    );
    const params = oauth.validateAuthResponse(as, spa, callback, state);
    const tokens = await oauth.processAuthorizationCodeResponse(
      as,
      spa,
      await oauth.authorizationCodeGrantRequest(as, spa, none, params, redirectUri, verifier, {
        ...options,
        DPoP: dpop,
      }),
      { expectedNonce: nonce },
    );
    expect(tokens.token_type).toBe('dpop');
    const userinfo = await oauth.processUserInfoResponse(
      as,
      spa,
      DEMO.user.id,
      await oauth.userInfoRequest(as, spa, tokens.access_token, { ...options, DPoP: dpop }),
    );
    expect(userinfo.sub).toBe(DEMO.user.id);
    const tickets = await ticketsCall(tokens.access_token, dpop);
    expect(tickets.status).toBe(200);
    expect(((await tickets.json()) as { tickets: unknown[] }).tickets).toHaveLength(3);
    // The same token as Bearer is refused, with a DPoP challenge oauth4webapi parses.
    const refusal = await ticketsCall(tokens.access_token).catch((error: unknown) => error);
    expect(refusal).toBeInstanceOf(oauth.WWWAuthenticateChallengeError);
    const { response, cause } = refusal as oauth.WWWAuthenticateChallengeError;
    expect(response.status).toBe(401);
    expect(cause.find((c) => c.scheme === 'dpop')?.parameters).toMatchObject({ error: 'invalid_token' });
    // The refresh token is bound to the key: another key is refused, the client's own works.
    const otherKey = oauth.DPoP(spa, await oauth.generateKeyPair('ES256'));
    await expect(
      oauth.processRefreshTokenResponse(
        as,
        spa,
        await oauth.refreshTokenGrantRequest(as, spa, none, tokens.refresh_token!, {
          ...options,
          DPoP: otherKey,
        }),
      ),
    ).rejects.toMatchObject({ error: 'invalid_grant' });
    const refreshed = await oauth.processRefreshTokenResponse(
      as,
      spa,
      await oauth.refreshTokenGrantRequest(as, spa, none, tokens.refresh_token!, { ...options, DPoP: dpop }),
    );
    expect(refreshed.token_type).toBe('dpop');
    expect((await ticketsCall(refreshed.access_token, dpop)).status).toBe(200);
  });

  it('oauth4webapi: demo-par pushes with client_secret_basic; a plain request of it is refused', async () => {
    const par: oauth.Client = { client_id: DEMO.parClient.id };
    const basic = oauth.ClientSecretBasic(DEMO.parClient.secret);
    const verifier = oauth.generateRandomCodeVerifier();
    const state = oauth.generateRandomState();
    const request = {
      redirect_uri: redirectUri,
      response_type: 'code',
      scope: 'openid profile',
      state,
      code_challenge: await oauth.calculatePKCECodeChallenge(verifier),
      code_challenge_method: 'S256',
    };
    const plain = new URL(as.authorization_endpoint!);
    for (const [name, value] of Object.entries({ client_id: par.client_id, ...request }))
      plain.searchParams.set(name, value);
    const refused = await fetch(plain, { redirect: 'manual' });
    expect(new URL(refused.headers.get('location')!).searchParams.get('error')).toBe('invalid_request');
    await expect(
      oauth.processPushedAuthorizationResponse(
        as,
        par,
        await oauth.pushedAuthorizationRequest(as, par, oauth.ClientSecretBasic('wrong'), request, options),
      ),
    ).rejects.toMatchObject({ status: 401 });
    const callback = await pushAndSignIn(par, basic, request);
    const params = oauth.validateAuthResponse(as, par, callback, state);
    const tokens = await oauth.processAuthorizationCodeResponse(
      as,
      par,
      await oauth.authorizationCodeGrantRequest(as, par, basic, params, redirectUri, verifier, options),
    );
    expect(tokens.token_type).toBe('bearer');
    expect((await ticketsCall(tokens.access_token)).status).toBe(200);
  });

  it('openid-client: demo-client with DPoP through buildAuthorizationUrlWithPAR, refresh, userinfo, tickets', async () => {
    const config = await client.discovery(
      new URL(server.issuer),
      DEMO.client.id,
      {},
      client.ClientSecretBasic(DEMO.client.secret),
      { execute: [client.allowInsecureRequests] },
    );
    const dpop = client.getDPoPHandle(config, await client.randomDPoPKeyPair('ES256'));
    const verifier = client.randomPKCECodeVerifier();
    const state = client.randomState();
    const url = await client.buildAuthorizationUrlWithPAR(
      config,
      {
        redirect_uri: redirectUri,
        scope: 'openid profile offline_access tickets:read',
        code_challenge: await client.calculatePKCECodeChallenge(verifier),
        code_challenge_method: 'S256',
        state,
      },
      { DPoP: dpop },
    );
    expect([...url.searchParams.keys()].sort()).toEqual(['client_id', 'request_uri']);
    const { url: callback } = await navigateSigningIn(new CookieClient(), url.href, USER, (at) =>
      at.href.startsWith(redirectUri),
    );
    const tokens = await client.authorizationCodeGrant(
      config,
      callback,
      { pkceCodeVerifier: verifier, expectedState: state },
      undefined,
      { DPoP: dpop },
    );
    expect(tokens.token_type).toBe('dpop');
    const info = await client.fetchUserInfo(config, tokens.access_token, DEMO.user.id, { DPoP: dpop });
    expect(info.sub).toBe(DEMO.user.id);
    const tickets = await client.fetchProtectedResource(
      config,
      tokens.access_token,
      new URL(ticketsUrl),
      'POST',
      JSON.stringify({ limit: 2 }),
      new Headers({ 'Content-Type': 'application/json' }),
      { DPoP: dpop },
    );
    expect(tickets.status).toBe(200);
    const refreshed = await client.refreshTokenGrant(config, tokens.refresh_token!, undefined, {
      DPoP: dpop,
    });
    expect(refreshed.token_type).toBe('dpop');
  });

  it('answers a wrong htu at the token endpoint with 400 invalid_dpop_proof', async () => {
    const keyPair = await oauth.generateKeyPair('ES256');
    const jwk = await crypto.subtle.exportKey('jwk', keyPair.publicKey);
    const { kty, crv, x, y } = jwk;
    const b64 = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');
    const input = `${b64({ alg: 'ES256', typ: 'dpop+jwt', jwk: { kty, crv, x, y } })}.${b64({
      htm: 'POST',
      htu: `${server.issuer}/oauth2/v1/userinfo`,
      iat: Math.floor(Date.now() / 1000),
      jti: crypto.randomUUID(),
    })}`;
    const signature = await crypto.subtle.sign(
      { name: 'ECDSA', hash: 'SHA-256' },
      keyPair.privateKey,
      new TextEncoder().encode(input),
    );
    const response = await fetch(`${server.issuer}/oauth2/v1/token`, {
      method: 'POST',
      headers: {
        'Content-Type': 'application/x-www-form-urlencoded',
        Authorization: `Basic ${btoa(`${DEMO.client.id}:${DEMO.client.secret}`)}`,
        DPoP: `${input}.${Buffer.from(signature).toString('base64url')}`,
      },
      body: new URLSearchParams({ grant_type: 'refresh_token', refresh_token: 'x' }),
    });
    expect(response.status).toBe(400);
    expect(((await response.json()) as { error: string }).error).toBe('invalid_dpop_proof');
  });
});
