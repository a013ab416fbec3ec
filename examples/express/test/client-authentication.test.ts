/**
 * Every client authentication method of the demo, over HTTP, with the libraries real apps use:
 * passport-oauth2 (node-oauth underneath) with its documented options (`client_secret_post`,
 * against `demo-post`) and with HTTP Basic through `customHeaders` plus the empty `client_secret=`
 * node-oauth always sends (against `demo-client`); openid-client v6's client credentials grant
 * with `ClientSecretBasic` (`demo-service`) and `PrivateKeyJwt` (`demo-jwt`, the committed demo
 * key), and its code flow with `ClientSecretPost` and `PrivateKeyJwt`; and the assertions and
 * method mix-ups every server must refuse. The demo is the one of `createDemo`, served by Express
 * in this process; the user signs in through the login page with a fetch-based browser.
 */
import { readFileSync } from 'node:fs';
import type { Server } from 'node:http';
import { createRequire } from 'node:module';
import { createDemo, DEMO } from '@gatehousejs/demo';
import { gatehouse } from '@gatehousejs/express';
import express from 'express';
import { importJWK, SignJWT } from 'jose';
import * as client from 'openid-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { navigateSigningIn } from '../../conformance/src/code-flow';
import { CookieClient } from '../../conformance/src/harness';
import { freePort } from './support/demo-server';

const JWT_BEARER = 'urn:ietf:params:oauth:client-assertion-type:jwt-bearer';
const USER = { username: DEMO.user.username, password: DEMO.user.password };
const demoJwtKey = JSON.parse(
  readFileSync(new URL('../../demo/keys/demo-jwt.private.jwk.json', import.meta.url), 'utf8'),
) as Record<string, string>;

/**
 * passport-oauth2 strategies on the app: `/passport/:via/login` starts a sign-in, `/callback` (the
 * demo clients' redirect URI) completes it with the strategy that started it, `/passport/me`
 * answers what the strategy got from the token endpoint.
 */
function mountPassport(app: express.Express, issuer: string, origin: string): void {
  const require = createRequire(import.meta.url);
  const passport = require('passport');
  const session = require('express-session');
  const OAuth2Strategy = require('passport-oauth2');
  const common = {
    authorizationURL: `${issuer}/oauth2/v1/authorize`,
    tokenURL: `${issuer}/oauth2/v1/token`,
    callbackURL: `${origin}/callback`,
    scope: ['tickets:read'],
    state: true,
  };
  const verify = (
    accessToken: string,
    _refreshToken: string,
    _profile: unknown,
    done: (error: unknown, user?: unknown) => void,
  ) => done(null, { accessToken });
  // Its documented configuration: the secret goes in the body (client_secret_post).
  passport.use(
    'post',
    new OAuth2Strategy(
      {
        ...common,
        clientID: DEMO.postClient.id,
        clientSecret: DEMO.postClient.secret,
        sessionKey: 'oauth2:post',
      },
      verify,
    ),
  );
  // HTTP Basic through customHeaders; node-oauth still sends `client_id` and an empty `client_secret=`.
  passport.use(
    'basic',
    new OAuth2Strategy(
      {
        ...common,
        clientID: DEMO.client.id,
        clientSecret: '',
        customHeaders: {
          Authorization: `Basic ${Buffer.from(`${DEMO.client.id}:${DEMO.client.secret}`).toString('base64')}`,
        },
        sessionKey: 'oauth2:basic',
      },
      verify,
    ),
  );
  passport.serializeUser((user: unknown, done: (error: unknown, id?: unknown) => void) => done(null, user));
  passport.deserializeUser((user: unknown, done: (error: unknown, user?: unknown) => void) =>
    done(null, user),
  );
  app.use(session({ secret: 'a-test-secret', resave: false, saveUninitialized: false }));
  app.use(passport.session());
  app.get('/passport/:via/login', (req, res, next) => {
    (req as unknown as { session: { via?: string } }).session.via = req.params.via;
    passport.authenticate(req.params.via)(req, res, next);
  });
  app.get('/callback', (req, res, next) => {
    const via = (req as unknown as { session: { via?: string } }).session.via ?? 'none';
    passport.authenticate(via, { failureRedirect: '/passport/failed', failureMessage: true })(req, res, () =>
      res.redirect('/passport/me'),
    );
    void next;
  });
  app.get('/passport/me', (req, res) => {
    res.json({ user: (req as { user?: unknown }).user ?? null });
  });
  app.get('/passport/failed', (req, res) => {
    res.status(401).json({ messages: (req as { session?: { messages?: unknown } }).session?.messages });
  });
}

describe('client authentication methods over HTTP (issue 16)', () => {
  let server: Server;
  let origin: string;
  let issuer: string;
  let tokenUrl: string;

  beforeAll(async () => {
    const port = await freePort();
    const demo = await createDemo({ port, warn: () => {} });
    origin = demo.origin;
    issuer = demo.issuer;
    tokenUrl = `${issuer}/oauth2/v1/token`;
    const app = express();
    app.use('/demo', gatehouse(demo.gatehouse));
    mountPassport(app, issuer, origin);
    await new Promise<void>((resolve) => {
      server = app.listen(port, '127.0.0.1', () => resolve());
    });
  }, 30_000);

  afterAll(async () => {
    server?.closeAllConnections();
    await new Promise((resolve) => server?.close(resolve));
  });

  /** openid-client configured from discovery for one of the demo clients. */
  const configure = (clientId: string, auth: client.ClientAuth) =>
    client.discovery(new URL(issuer), clientId, {}, auth, { execute: [client.allowInsecureRequests] });

  const privateKeyJwt = async () =>
    client.PrivateKeyJwt({ key: (await importJWK(demoJwtKey, 'ES256')) as CryptoKey, kid: demoJwtKey.kid });

  /** An assertion of demo-jwt signed with `key` (default the demo key), with claim overrides. */
  async function assertion(
    claims: { aud?: string; exp?: number; iat?: number; jti?: string } = {},
    key: CryptoKey | Uint8Array | undefined = undefined,
  ): Promise<string> {
    const now = Math.floor(Date.now() / 1000);
    return new SignJWT({ jti: claims.jti ?? crypto.randomUUID() })
      .setProtectedHeader({ alg: 'ES256', kid: demoJwtKey.kid! })
      .setIssuer(DEMO.jwtClient.id)
      .setSubject(DEMO.jwtClient.id)
      .setAudience(claims.aud ?? issuer)
      .setIssuedAt(claims.iat ?? now)
      .setExpirationTime(claims.exp ?? now + 60)
      .sign(key ?? ((await importJWK(demoJwtKey, 'ES256')) as CryptoKey));
  }

  /** A client_credentials request with a raw form and headers. */
  const tokenRequest = (form: Record<string, string>, headers: Record<string, string> = {}) =>
    fetch(tokenUrl, {
      method: 'POST',
      headers: { 'Content-Type': 'application/x-www-form-urlencoded', ...headers },
      body: new URLSearchParams({ grant_type: 'client_credentials', ...form }),
    });

  async function expectError(response: Response, status: number, error: string) {
    expect(response.status).toBe(status);
    expect(((await response.json()) as { error: string }).error).toBe(error);
  }

  it('passport-oauth2 signs in with its documented options (client_secret_post, demo-post)', async () => {
    const { url, response } = await navigateSigningIn(
      new CookieClient(),
      `${origin}/passport/post/login`,
      USER,
    );
    expect(url.pathname).toBe('/passport/me');
    const { user } = (await response!.json()) as { user: { accessToken?: string } | null };
    expect(user?.accessToken).toMatch(/^ey/);
  });

  it('passport-oauth2 signs in with Basic in customHeaders despite its empty client_secret= (demo-client)', async () => {
    const { url, response } = await navigateSigningIn(
      new CookieClient(),
      `${origin}/passport/basic/login`,
      USER,
    );
    expect(url.pathname).toBe('/passport/me');
    const { user } = (await response!.json()) as { user: { accessToken?: string } | null };
    expect(user?.accessToken).toMatch(/^ey/);
  });

  it('openid-client clientCredentialsGrant with ClientSecretBasic (demo-service) and PrivateKeyJwt (demo-jwt)', async () => {
    const service = await configure(
      DEMO.serviceClient.id,
      client.ClientSecretBasic(DEMO.serviceClient.secret),
    );
    const serviceTokens = await client.clientCredentialsGrant(service, { scope: 'tickets:read' });
    expect(serviceTokens).toMatchObject({ token_type: 'bearer', scope: 'tickets:read' });
    expect(serviceTokens.refresh_token).toBeUndefined();
    expect(serviceTokens.access_token).toMatch(/^ey/);

    const jwtClient = await configure(DEMO.jwtClient.id, await privateKeyJwt());
    const jwtTokens = await client.clientCredentialsGrant(jwtClient, { scope: 'tickets:read' });
    expect(jwtTokens.access_token).toMatch(/^ey/);
    expect(jwtTokens.refresh_token).toBeUndefined();
  });

  for (const [name, clientId, auth] of [
    [
      'ClientSecretPost (demo-post)',
      DEMO.postClient.id,
      () => client.ClientSecretPost(DEMO.postClient.secret),
    ],
    ['PrivateKeyJwt (demo-jwt)', DEMO.jwtClient.id, privateKeyJwt],
  ] as const) {
    it(`openid-client runs the code flow with ${name}, refresh included`, async () => {
      const config = await configure(clientId, await auth());
      const verifier = client.randomPKCECodeVerifier();
      const state = client.randomState();
      const redirectUri = `${origin}/callback`;
      const authorizeUrl = client.buildAuthorizationUrl(config, {
        redirect_uri: redirectUri,
        scope: 'openid profile offline_access',
        code_challenge: await client.calculatePKCECodeChallenge(verifier),
        code_challenge_method: 'S256',
        state,
      });
      const { url } = await navigateSigningIn(new CookieClient(), authorizeUrl.href, USER, (at) =>
        at.href.startsWith(redirectUri),
      );
      const tokens = await client.authorizationCodeGrant(config, url, {
        pkceCodeVerifier: verifier,
        expectedState: state,
      });
      expect(tokens.claims()?.sub).toBe(DEMO.user.id);
      expect(tokens.refresh_token).toBeTruthy();
      const refreshed = await client.refreshTokenGrant(config, tokens.refresh_token!);
      expect(refreshed.access_token).toMatch(/^ey/);
    });
  }

  it('refuses replayed, expired, wrong-audience and foreign-key assertions with invalid_client', async () => {
    const once = await assertion();
    const form = (clientAssertion: string) => ({
      client_assertion_type: JWT_BEARER,
      client_assertion: clientAssertion,
    });
    expect((await tokenRequest(form(once))).status).toBe(200);
    await expectError(await tokenRequest(form(once)), 401, 'invalid_client');
    const now = Math.floor(Date.now() / 1000);
    await expectError(
      await tokenRequest(form(await assertion({ iat: now - 600, exp: now - 300 }))),
      401,
      'invalid_client',
    );
    await expectError(
      await tokenRequest(form(await assertion({ aud: 'https://elsewhere.example' }))),
      401,
      'invalid_client',
    );
    const { privateKey } = await crypto.subtle.generateKey({ name: 'ECDSA', namedCurve: 'P-256' }, false, [
      'sign',
      'verify',
    ]);
    await expectError(await tokenRequest(form(await assertion({}, privateKey))), 401, 'invalid_client');
  });

  it('refuses a method other than the registered one (invalid_client) and two methods at once (invalid_request)', async () => {
    const serviceBasic = `Basic ${Buffer.from(`${DEMO.serviceClient.id}:${DEMO.serviceClient.secret}`).toString('base64')}`;
    // demo-service is registered for client_secret_basic: its secret in the body is another method.
    const wrong = await tokenRequest({
      client_id: DEMO.serviceClient.id,
      client_secret: DEMO.serviceClient.secret,
    });
    await expectError(wrong, 401, 'invalid_client');
    expect(wrong.headers.get('www-authenticate')).toMatch(/^Basic realm=/);
    await expectError(
      await tokenRequest(
        { client_id: DEMO.serviceClient.id, client_secret: DEMO.serviceClient.secret },
        {
          Authorization: serviceBasic,
        },
      ),
      400,
      'invalid_request',
    );
    await expectError(
      await tokenRequest(
        { client_assertion_type: JWT_BEARER, client_assertion: await assertion() },
        {
          Authorization: serviceBasic,
        },
      ),
      400,
      'invalid_request',
    );
  });
});
