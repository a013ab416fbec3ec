import { type ClientRecord, hashClientSecret, memoryClientStore } from '@gatehousejs/core';
import { describe, expect, it } from 'vitest';
import { testClients } from '../../core/test/fixtures';
import { harness, RESOURCE_PATH } from '../test/support';

/** An ES256 key pair (Web Crypto): the private key stays non-extractable. */
async function generateKeyPair() {
  return crypto.subtle.generateKey({ name: 'ECDSA', namedCurve: 'P-256' }, false, ['sign', 'verify']);
}

async function publicJwk(key: CryptoKey) {
  const { kty, crv, x, y } = await crypto.subtle.exportKey('jwk', key);
  return { kty, crv, x, y };
}

async function withServices(extra: ClientRecord[]) {
  // Real time: oauth4webapi dates its assertions by the real clock, which the server must share.
  return harness({ now: Date.now, clients: memoryClientStore([...(await testClients()), ...extra]) });
}

const service = async (
  id: string,
  method: ClientRecord['tokenEndpointAuthMethod'],
): Promise<ClientRecord> => ({
  id,
  type: 'confidential',
  secretHash: await hashClientSecret(`${id}-secret`),
  tokenEndpointAuthMethod: method,
  grantTypes: ['client_credentials'],
  redirectUris: [],
});

describe('client credentials and private_key_jwt (server-side)', () => {
  it('obtains and stores a client token with the secret in Basic or in the body', async () => {
    const h = await withServices([
      await service('basic-service', 'client_secret_basic'),
      await service('post-service', 'client_secret_post'),
    ]);
    for (const [clientId, method] of [
      ['basic-service', undefined],
      ['post-service', 'client_secret_post'],
    ] as const) {
      const client = h.client({
        clientId,
        clientSecret: `${clientId}-secret`,
        tokenEndpointAuthMethod: method,
      });
      const tokens = await client.clientCredentials({ scope: 'read' });
      expect(tokens.scope).toBe('read');
      expect(tokens.refreshToken).toBeUndefined();
      expect((await client.getTokens())?.accessToken).toBe(tokens.accessToken);
      const call = h.tokenCalls('client_credentials').at(-1)!;
      const body = new URLSearchParams(call.body);
      if (method === 'client_secret_post') {
        expect(call.authorization).toBeNull();
        expect(body.get('client_secret')).toBe('post-service-secret');
      } else {
        expect(call.authorization).toMatch(/^Basic /);
        expect(body.has('client_secret')).toBe(false);
      }
    }
  });

  it('authenticates with a private key (private_key_jwt) for the grant, introspection and revocation', async () => {
    const { privateKey, publicKey } = await generateKeyPair();
    const h = await withServices([
      {
        id: 'jwt-service',
        type: 'confidential',
        tokenEndpointAuthMethod: 'private_key_jwt',
        jwks: { keys: [{ ...(await publicJwk(publicKey)), kid: 'k1' }] },
        grantTypes: ['client_credentials'],
        redirectUris: [],
      },
    ]);
    const client = h.client({
      clientId: 'jwt-service',
      clientSecret: undefined,
      clientPrivateKey: { key: privateKey, kid: 'k1' },
    });
    const tokens = await client.clientCredentials();
    const body = new URLSearchParams(h.tokenCalls('client_credentials').at(-1)!.body);
    expect(body.get('client_assertion_type')).toBe('urn:ietf:params:oauth:client-assertion-type:jwt-bearer');
    expect(await client.introspect()).toMatchObject({
      active: true,
      sub: 'jwt-service',
      client_id: 'jwt-service',
    });
    // A users-only resource refuses the client's own token.
    const resource = await client.fetch(new URL(RESOURCE_PATH, 'http://localhost:3000').href, {
      auth: 'oauth',
    });
    expect(resource.status).toBe(403);
    await client.revoke();
    expect(await client.getTokens()).toBeNull();
    expect((await client.introspect(tokens.accessToken)).active).toBe(false);
  });

  it('refuses options that mix methods or lack what the method needs, and public clients', async () => {
    const h = await withServices([]);
    const { privateKey } = await generateKeyPair();
    expect(() => h.client({ clientPrivateKey: privateKey })).toThrow(/not both/);
    expect(() =>
      h.client({ clientSecret: undefined, tokenEndpointAuthMethod: 'client_secret_post' }),
    ).toThrow(/needs clientSecret/);
    expect(() => h.client({ clientSecret: undefined, tokenEndpointAuthMethod: 'private_key_jwt' })).toThrow(
      /needs clientPrivateKey/,
    );
    await expect(
      h.client({ clientId: 'demo-spa', clientSecret: undefined }).clientCredentials(),
    ).rejects.toMatchObject({
      code: 'confidential_client_required',
    });
    // The server refuses clients not registered for the grant.
    await expect(h.client().clientCredentials()).rejects.toMatchObject({
      code: 'token_request_failed',
      error: 'unauthorized_client',
    });
  });
});
