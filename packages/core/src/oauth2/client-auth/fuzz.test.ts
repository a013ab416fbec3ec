import { hashClientSecret, memoryClientStore } from '@gatehousejs/core';
import fc from 'fast-check';
import { exportJWK, generateKeyPair, SignJWT } from 'jose';
import { describe, expect, it } from 'vitest';
import { basic, ISSUER, REDIRECT_URI, testClients, testInstance } from '../../../test/fixtures';

const JWT_BEARER = 'urn:ietf:params:oauth:client-assertion-type:jwt-bearer';
const b64 = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');

describe('client authentication under arbitrary input', () => {
  it('answers every combination of methods, ids, secrets and assertions with a 2xx/4xx, never a 5xx', async () => {
    const { privateKey, publicKey } = await generateKeyPair('ES256', { extractable: true });
    const publicJwk = { ...(await exportJWK(publicKey)), kid: 'k' };
    const t = await testInstance({
      clients: memoryClientStore([
        ...(await testClients()),
        {
          id: 'jwt-client',
          type: 'confidential',
          tokenEndpointAuthMethod: 'private_key_jwt',
          jwks: { keys: [publicJwk] },
          grantTypes: ['client_credentials'],
          redirectUris: [REDIRECT_URI],
        },
        {
          id: 'uri-client',
          type: 'confidential',
          tokenEndpointAuthMethod: 'private_key_jwt',
          jwksUri: 'https://127.0.0.1/jwks',
          redirectUris: [REDIRECT_URI],
        },
        {
          id: 'post-client',
          type: 'confidential',
          tokenEndpointAuthMethod: 'client_secret_post',
          secretHash: await hashClientSecret('post-secret'),
          grantTypes: ['client_credentials'],
          redirectUris: [REDIRECT_URI],
        },
      ]),
    });
    const clientIds = fc.constantFrom(
      'jwt-client',
      'uri-client',
      'post-client',
      'demo-client',
      'demo-spa',
      '',
      'x',
    );
    const claims = fc.record(
      {
        iss: fc.oneof(clientIds, fc.string(), fc.integer()),
        sub: fc.oneof(clientIds, fc.string(), fc.constant(null)),
        aud: fc.oneof(
          fc.constantFrom(ISSUER, `${ISSUER}/oauth2/v1/token`, 'x'),
          fc.array(fc.string()),
          fc.integer(),
        ),
        exp: fc.oneof(
          fc.integer({ min: 1_767_225_000, max: 1_767_226_000 }),
          fc.string(),
          fc.double({ noDefaultInfinity: true, noNaN: true }),
        ),
        iat: fc.oneof(fc.integer({ min: 1_767_225_000, max: 1_767_226_000 }), fc.string()),
        jti: fc.oneof(fc.string(), fc.integer(), fc.string({ minLength: 300, maxLength: 400 })),
      },
      { requiredKeys: [] },
    );
    const header = fc.oneof(
      fc.constant({ alg: 'ES256', kid: 'k' }),
      fc.record({ alg: fc.constantFrom('none', 'HS256', 'RS256', 'ES256', 'EdDSA', ''), kid: fc.string() }),
    );
    // Signed assertions (by the registered key: only the claims can be wrong) and forged ones.
    const assertion = fc.oneof(
      claims.map((payload) => ({ payload, signed: true as const })),
      fc.tuple(header, claims, fc.string()).map(([h, payload, signature]) => ({
        raw: `${b64(h)}.${b64(payload)}.${signature}`,
      })),
      fc.string().map((raw) => ({ raw })),
    );
    const credentials = fc.record(
      {
        client_id: fc.oneof(clientIds, fc.string()),
        client_secret: fc.oneof(fc.constantFrom('', 'post-secret', 'demo-secret'), fc.string()),
        client_assertion_type: fc.oneof(fc.constant(JWT_BEARER), fc.constant(''), fc.string()),
        client_assertion: assertion,
      },
      { requiredKeys: [] },
    );
    const authorization = fc.oneof(
      fc.constant(undefined),
      fc.constant(basic('demo-client', 'demo-secret')),
      fc.constant(basic('post-client', 'post-secret')),
      fc.string().map((s) => `Basic ${s}`),
    );
    const path = fc.constantFrom('/oauth2/v1/token', '/oauth2/v1/revoke', '/oauth2/v1/introspect');

    await fc.assert(
      fc.asyncProperty(path, credentials, authorization, async (endpoint, given, auth) => {
        const form = new URLSearchParams({ grant_type: 'client_credentials', token: 'x' });
        for (const [name, value] of Object.entries(given)) {
          if (typeof value === 'string') form.set(name, value);
          else if ('raw' in value) form.set(name, value.raw);
          else {
            const jwt = new SignJWT(value.payload as Record<string, unknown>).setProtectedHeader({
              alg: 'ES256',
              kid: 'k',
            });
            form.set(name, await jwt.sign(privateKey));
          }
        }
        const headers = new Headers({ 'Content-Type': 'application/x-www-form-urlencoded' });
        if (auth !== undefined) {
          try {
            headers.set('Authorization', auth);
          } catch {}
        }
        const response = await t.gatehouse.fetch(
          new Request(ISSUER + endpoint, { method: 'POST', headers, body: form }),
        );
        expect(response.status).toBeLessThan(500);
        const text = await response.text();
        if (response.status >= 400) {
          const json = JSON.parse(text) as Record<string, unknown>;
          expect(['invalid_client', 'invalid_request', 'invalid_scope', 'unauthorized_client']).toContain(
            json.error,
          );
          expect(text).not.toMatch(/post-secret|demo-secret|at .*\.ts:\d+/);
        }
      }),
      { numRuns: 1500 },
    );
  });
});
