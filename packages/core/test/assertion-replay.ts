import type { GatehouseStorage } from '@gatehousejs/core';
import { createGatehouse, generateKeys, memoryClientStore, memoryUserStore } from '@gatehousejs/core';
import { exportJWK, generateKeyPair, SignJWT } from 'jose';
import { expect } from 'vitest';

const JWT_BEARER = 'urn:ietf:params:oauth:client-assertion-type:jwt-bearer';

/**
 * One `private_key_jwt` assertion is accepted once, on the engine behind `storage`, for as long as
 * it can be accepted at all: an assertion whose `exp` passed two seconds ago still verifies within
 * the 5 s clock tolerance, so its `jti` must outlive `exp` (RFC 7523 §3 item 7). The replay is
 * sent after the engine would have forgotten an id kept only until `exp` (or `now` + 1 s). Engine
 * packages call it with their storage; the clock is the real one, as the engines' expiry is.
 */
export async function expectAssertionAcceptedOnce(storage: GatehouseStorage): Promise<void> {
  const issuer = `https://auth.example/${crypto.randomUUID()}`;
  const { privateKey, publicKey } = await generateKeyPair('ES256', { extractable: true });
  const gatehouse = createGatehouse({
    issuer,
    keys: [await generateKeys('ES256')],
    clients: memoryClientStore([
      {
        id: 'jwt-client',
        type: 'confidential',
        tokenEndpointAuthMethod: 'private_key_jwt',
        grantTypes: ['client_credentials'],
        redirectUris: [],
        jwks: { keys: [{ ...(await exportJWK(publicKey)), kid: 'k1', alg: 'ES256' }] },
      },
    ]),
    users: memoryUserStore([]),
    storage,
    clockToleranceSeconds: 5,
    logger: { warn() {}, error() {} },
  });
  const now = Math.floor(Date.now() / 1000);
  const assertion = await new SignJWT({})
    .setProtectedHeader({ alg: 'ES256', kid: 'k1' })
    .setIssuer('jwt-client')
    .setSubject('jwt-client')
    .setAudience(issuer)
    .setIssuedAt(now - 60)
    .setExpirationTime(now - 2)
    .setJti(crypto.randomUUID())
    .sign(privateKey);
  const token = () =>
    gatehouse.fetch(
      new Request(`${issuer}/oauth2/v1/token`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({
          grant_type: 'client_credentials',
          client_assertion_type: JWT_BEARER,
          client_assertion: assertion,
        }),
      }),
    );
  expect((await token()).status).toBe(200);
  expect((await token()).status).toBe(401);
  await new Promise((resolve) => setTimeout(resolve, 1_200));
  const replay = await token();
  expect(replay.status).toBe(401);
  expect(((await replay.json()) as { error: string }).error).toBe('invalid_client');
}
