import * as oauth from 'oauth4webapi';
import { describe, expect, it } from 'vitest';
import { ISSUER, mintCode, REDIRECT_URI, testInstance } from '../../test/fixtures';

/** oauth4webapi, an independent client, against gatehouse.fetch through its custom-fetch hook. */
async function setup() {
  const t = await testInstance();
  const customFetch = (input: RequestInfo | URL, init?: RequestInit) =>
    t.gatehouse.fetch(new Request(input, init));
  const options = { [oauth.customFetch]: customFetch, [oauth.allowInsecureRequests]: true } as const;
  const issuer = new URL(ISSUER);
  const as = await oauth
    .discoveryRequest(issuer, { ...options, algorithm: 'oauth2' })
    .then((response) => oauth.processDiscoveryResponse(issuer, response));
  const client: oauth.Client = { client_id: 'demo-client' };
  const clientAuth = oauth.ClientSecretBasic('demo-secret');
  return { t, as, client, clientAuth, options };
}

describe('interoperability with oauth4webapi', () => {
  it('discovers, exchanges a code with PKCE, refreshes, introspects and revokes', async () => {
    const { t, as, client, clientAuth, options } = await setup();
    const verifier = oauth.generateRandomCodeVerifier();
    const challenge = await oauth.calculatePKCECodeChallenge(verifier);
    const state = oauth.generateRandomState();
    const code = await mintCode(t, { codeChallenge: challenge });

    const callback = new URL(`${REDIRECT_URI}?code=${code}&state=${state}&iss=${encodeURIComponent(ISSUER)}`);
    const params = oauth.validateAuthResponse(as, client, callback, state);
    const tokenResponse = await oauth.authorizationCodeGrantRequest(
      as,
      client,
      clientAuth,
      params,
      REDIRECT_URI,
      verifier,
      options,
    );
    const tokens = await oauth.processAuthorizationCodeResponse(as, client, tokenResponse);
    expect(tokens.token_type).toBe('bearer');
    expect(tokens.refresh_token).toBeDefined();

    const refreshed = await oauth.processRefreshTokenResponse(
      as,
      client,
      await oauth.refreshTokenGrantRequest(as, client, clientAuth, tokens.refresh_token!, options),
    );
    expect(refreshed.access_token).not.toBe(tokens.access_token);

    const introspection = await oauth.processIntrospectionResponse(
      as,
      client,
      await oauth.introspectionRequest(as, client, clientAuth, refreshed.access_token, options),
    );
    expect(introspection).toMatchObject({ active: true, client_id: 'demo-client', sub: 'user-1' });

    await oauth.processRevocationResponse(
      await oauth.revocationRequest(as, client, clientAuth, refreshed.refresh_token!, options),
    );
    const after = await oauth.processIntrospectionResponse(
      as,
      client,
      await oauth.introspectionRequest(as, client, clientAuth, refreshed.access_token, options),
    );
    expect(after.active).toBe(false);
  });

  it('surfaces a replayed code as an OAuth error the client understands', async () => {
    const { t, as, client, clientAuth, options } = await setup();
    const verifier = oauth.generateRandomCodeVerifier();
    const code = await mintCode(t, { codeChallenge: await oauth.calculatePKCECodeChallenge(verifier) });
    const params = oauth.validateAuthResponse(
      as,
      client,
      new URL(`${REDIRECT_URI}?code=${code}&iss=${encodeURIComponent(ISSUER)}`),
      oauth.skipStateCheck,
    );
    await oauth.processAuthorizationCodeResponse(
      as,
      client,
      await oauth.authorizationCodeGrantRequest(
        as,
        client,
        clientAuth,
        params,
        REDIRECT_URI,
        verifier,
        options,
      ),
    );
    const replay = await oauth.authorizationCodeGrantRequest(
      as,
      client,
      clientAuth,
      params,
      REDIRECT_URI,
      verifier,
      options,
    );
    await expect(oauth.processAuthorizationCodeResponse(as, client, replay)).rejects.toMatchObject({
      error: 'invalid_grant',
    });
  });
});
