import { describe, expect, it } from 'vitest';
import { ISSUER, testInstance } from '../../test/fixtures';

describe('authorization server metadata (RFC 8414)', () => {
  it('is served at the origin-level well-known path and below the instance', async () => {
    const t = await testInstance();
    for (const url of [
      'http://localhost:3000/.well-known/oauth-authorization-server/demo',
      `${ISSUER}/.well-known/oauth-authorization-server`,
    ]) {
      const response = await t.gatehouse.fetch(new Request(url));
      expect(response.status).toBe(200);
      const metadata = await response.json();
      expect(metadata).toMatchObject({
        issuer: ISSUER,
        authorization_endpoint: `${ISSUER}/oauth2/v1/authorize`,
        token_endpoint: `${ISSUER}/oauth2/v1/token`,
        revocation_endpoint: `${ISSUER}/oauth2/v1/revoke`,
        introspection_endpoint: `${ISSUER}/oauth2/v1/introspect`,
        userinfo_endpoint: `${ISSUER}/oauth2/v1/userinfo`,
        jwks_uri: `${ISSUER}/oauth2/v1/keys`,
        response_types_supported: ['code'],
        grant_types_supported: [
          'authorization_code',
          'refresh_token',
          'client_credentials',
          'urn:ietf:params:oauth:grant-type:device_code',
        ],
        device_authorization_endpoint: `${ISSUER}/oauth2/v1/device_authorization`,
        token_endpoint_auth_methods_supported: [
          'client_secret_basic',
          'client_secret_post',
          'private_key_jwt',
          'none',
        ],
        code_challenge_methods_supported: ['S256'],
        authorization_response_iss_parameter_supported: true,
      });
    }
  });

  it('publishes only public keys, each with kid, alg and use', async () => {
    const t = await testInstance();
    const response = await t.gatehouse.fetch(new Request(`${ISSUER}/oauth2/v1/keys`));
    expect(response.headers.get('content-type')).toBe('application/jwk-set+json');
    const { keys } = await response.json();
    expect(keys).toHaveLength(1);
    expect(keys[0]).toMatchObject({
      kty: 'EC',
      crv: 'P-256',
      alg: 'ES256',
      use: 'sig',
      kid: expect.any(String),
    });
    expect(keys[0].d).toBeUndefined();
  });

  it('answers HEAD like GET without a body', async () => {
    const t = await testInstance();
    const response = await t.gatehouse.fetch(new Request(`${ISSUER}/oauth2/v1/keys`, { method: 'HEAD' }));
    expect(response.status).toBe(200);
    expect(await response.text()).toBe('');
  });
});
