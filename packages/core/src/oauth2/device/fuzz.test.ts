import { DEVICE_CODE_GRANT, hashClientSecret, memoryClientStore } from '@gatehousejs/core';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ORIGIN } from '../../../test/browser-flow';
import { basic, ISSUER, testClients, testInstance } from '../../../test/fixtures';

async function instance() {
  return testInstance({
    clients: memoryClientStore([
      ...(await testClients()),
      {
        id: 'cli',
        type: 'public',
        tokenEndpointAuthMethod: 'none',
        redirectUris: [],
        grantTypes: [DEVICE_CODE_GRANT, 'refresh_token'],
      },
      {
        id: 'tv',
        type: 'confidential',
        secretHash: await hashClientSecret('tv-secret'),
        redirectUris: [],
        grantTypes: [DEVICE_CODE_GRANT],
      },
    ]),
    // Every run from its own address: the per-address limits are tested elsewhere.
    rateLimit: {
      clientAddress: () => `10.${Math.floor(Math.random() * 250)}.${Math.floor(Math.random() * 250)}.1`,
    },
  });
}

const values = fc.oneof(
  fc.string(),
  fc.constantFrom(
    DEVICE_CODE_GRANT,
    'cli',
    'tv',
    'openid profile',
    'BCDF-GHJK',
    'bcdfghjk',
    'allow',
    'deny',
    'https://mcp.example.com/mcp',
    '',
    '%',
    '\u0000',
    'a'.repeat(300),
  ),
  fc.string({ unit: 'binary', maxLength: 40 }),
);
const names = fc.constantFrom(
  'grant_type',
  'device_code',
  'client_id',
  'client_secret',
  'scope',
  'resource',
  'user_code',
  'decision',
  'csrf_token',
  'username',
  'password',
);
const formBody = fc.oneof(
  fc
    .array(fc.tuple(fc.oneof(names, fc.string()), values), { maxLength: 8 })
    .map((pairs) => pairs.map(([k, v]) => `${encodeURIComponent(k)}=${encodeURIComponent(v)}`).join('&')),
  fc.string({ maxLength: 200 }),
);

describe('device authorization grant under malformed input', () => {
  it('answers the device authorization and token endpoints with a 4xx JSON error, never a 5xx', async () => {
    const t = await instance();
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom('/oauth2/v1/device_authorization', '/oauth2/v1/token'),
        formBody,
        fc.constantFrom(undefined, basic('tv', 'tv-secret'), basic('tv', 'wrong'), 'Basic %%%'),
        async (path, body, authorization) => {
          const headers = new Headers({ 'Content-Type': 'application/x-www-form-urlencoded' });
          if (authorization) headers.set('Authorization', authorization);
          const response = await t.gatehouse.fetch(
            new Request(ISSUER + path, {
              method: 'POST',
              headers,
              body: `grant_type=${DEVICE_CODE_GRANT}&${body}`,
            }),
          );
          expect(response.status).toBeLessThan(500);
          const json = (await response.json()) as Record<string, unknown>;
          if (response.status >= 400) expect(typeof json.error).toBe('string');
        },
      ),
      { numRuns: 600 },
    );
  });

  it('answers the verification pages and the built-in sign-in pages with an HTML page, never a 5xx', async () => {
    const t = await instance();
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom('/device', '/device/confirm', '/login', '/consent'),
        fc.constantFrom('GET', 'POST'),
        formBody,
        async (path, method, body) => {
          const request =
            method === 'GET'
              ? new Request(`${ISSUER + path}?${body}`, { headers: { Accept: 'text/html' } })
              : new Request(ISSUER + path, {
                  method,
                  headers: {
                    'Content-Type': 'application/x-www-form-urlencoded',
                    Origin: ORIGIN,
                    'Sec-Fetch-Site': 'same-origin',
                  },
                  body,
                });
          const response = await t.gatehouse.fetch(request);
          expect(response.status).toBeLessThan(500);
          if (response.status !== 405) {
            expect(response.headers.get('content-type')).toMatch(/^text\/html/);
            expect(await response.text()).not.toMatch(/at .*\.ts:\d+/);
          }
        },
      ),
      { numRuns: 600 },
    );
  });
});
