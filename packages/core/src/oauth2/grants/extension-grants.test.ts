/**
 * The host's own grant types (`extensionGrants`, RFC 6749 §4.5) over the instance's HTTP handler:
 * served at the token endpoint after client authentication and the registration check, listed in
 * the metadata, their tokens accepted on the host's API.
 */
import {
  ConfigurationError,
  type ExtensionGrant,
  hashClientSecret,
  memoryClientStore,
} from '@gatehousejs/core';
import { decodeJwt } from 'jose';
import { describe, expect, it } from 'vitest';
import { dpopKey, dpopProof } from '../../../test/dpop';
import { basic, ISSUER, post, testClients, testInstance } from '../../../test/fixtures';

const OTP_GRANT = 'urn:example:grant-type:one-time-code';

/** A grant that trades a one-time code the host issued (here: a fixed table) for a user's token. */
const oneTimeCode: ExtensionGrant = {
  type: OTP_GRANT,
  handle({ parameter }) {
    const code = parameter('otp');
    if (code === undefined)
      return { error: 'invalid_request', description: 'The "otp" parameter is missing.' };
    if (code === 'down') throw new Error('the code table is unreachable');
    if (code === 'narrow') return { userId: 'user-1', scope: 'read' };
    if (code === 'wide') return { userId: 'user-1', scope: 'read write admin' };
    if (code === 'ghost') return { userId: 'nobody' };
    return code === '123456'
      ? { userId: 'user-1' }
      : { error: 'invalid_grant', description: 'Unknown code.' };
  },
};

async function instance() {
  const clients = [
    ...(await testClients()),
    {
      id: 'kiosk',
      type: 'confidential' as const,
      secretHash: await hashClientSecret('kiosk-secret'),
      redirectUris: [],
      grantTypes: [OTP_GRANT],
      scopes: ['read', 'write'],
    },
  ];
  return testInstance({ clients: memoryClientStore(clients), extensionGrants: [oneTimeCode] });
}

const request = (fields: Record<string, string>, headers: Record<string, string> = {}) =>
  post(
    '/oauth2/v1/token',
    { grant_type: OTP_GRANT, scope: 'read write', ...fields },
    {
      Authorization: basic('kiosk', 'kiosk-secret'),
      ...headers,
    },
  );

describe('extension grants (extensionGrants)', () => {
  it('issues a user token the host API accepts, and is listed in grant_types_supported', async () => {
    const t = await instance();
    const response = await t.gatehouse.fetch(request({ otp: '123456' }));
    expect(response.status).toBe(200);
    expect(response.headers.get('cache-control')).toBe('no-store');
    const body = (await response.json()) as { access_token: string; token_type: string; scope: string };
    expect(body).toMatchObject({ token_type: 'Bearer', scope: 'read write' });
    expect(body).not.toHaveProperty('refresh_token');
    expect(decodeJwt(body.access_token)).toMatchObject({ sub: 'user-1', client_id: 'kiosk' });
    const api = await t.gatehouse.authenticate(
      new Request(`${ISSUER}/api/v1/me`, { headers: { Authorization: `Bearer ${body.access_token}` } }),
      { schemes: ['bearer'] },
    );
    expect(api.ok).toBe(true);
    const metadata = (await (
      await t.gatehouse.fetch(new Request(`${ISSUER}/.well-known/oauth-authorization-server`))
    ).json()) as { grant_types_supported: string[] };
    expect(metadata.grant_types_supported).toContain(OTP_GRANT);
  });

  it('answers the host’s refusals as RFC 6749 §5.2 errors, and a failing handle as 503', async () => {
    const t = await instance();
    const error = async (fields: Record<string, string>) => {
      const response = await t.gatehouse.fetch(request(fields));
      return [response.status, ((await response.json()) as { error: string }).error];
    };
    expect(await error({ otp: '000000' })).toEqual([400, 'invalid_grant']);
    expect(await error({})).toEqual([400, 'invalid_request']);
    expect(await error({ otp: 'wide' })).toEqual([400, 'invalid_scope']);
    expect(await error({ otp: 'ghost' })).toEqual([400, 'invalid_grant']);
    expect(await error({ otp: 'down' })).toEqual([503, 'temporarily_unavailable']);
    const narrowed = await t.gatehouse.fetch(request({ otp: 'narrow' }));
    expect(((await narrowed.json()) as { scope: string }).scope).toBe('read');
  });

  it('serves only clients registered for it, after client authentication', async () => {
    const t = await instance();
    const wrongSecret = await t.gatehouse.fetch(
      request({ otp: '123456' }, { Authorization: basic('kiosk', 'not-the-secret') }),
    );
    expect(wrongSecret.status).toBe(401);
    const notRegistered = await t.gatehouse.fetch(
      request({ otp: '123456' }, { Authorization: basic('demo-client', 'demo-secret') }),
    );
    expect(((await notRegistered.json()) as { error: string }).error).toBe('unauthorized_client');
  });

  it('binds the token to a DPoP proof’s key', async () => {
    const t = await instance();
    const key = await dpopKey();
    const response = await t.gatehouse.fetch(
      request(
        { otp: '123456' },
        { DPoP: await dpopProof(key, 'POST', `${ISSUER}/oauth2/v1/token`, t.clock.now()) },
      ),
    );
    const body = (await response.json()) as { access_token: string; token_type: string };
    expect(body.token_type).toBe('DPoP');
    expect(decodeJwt(body.access_token).cnf).toEqual({ jkt: key.jkt });
  });

  it('refuses a grant type that is not an absolute URI, or one of Gatehouse’s, when the instance is made', async () => {
    await expect(testInstance({ extensionGrants: [{ ...oneTimeCode, type: 'otp' }] })).rejects.toMatchObject({
      code: 'ERR_CONFIG_INVALID_OPTION',
      option: 'extensionGrants[0].type',
    });
    await expect(
      testInstance({
        extensionGrants: [{ ...oneTimeCode, type: 'urn:ietf:params:oauth:grant-type:device_code' }],
      }),
    ).rejects.toBeInstanceOf(ConfigurationError);
  });
});
