import { CIBA_GRANT, hashClientSecret, memoryClientStore } from '@gatehousejs/core';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ORIGIN } from '../../../test/browser-flow';
import { basic, ISSUER, testClients, testInstance } from '../../../test/fixtures';

async function instance() {
  return testInstance({
    clients: memoryClientStore([
      ...(await testClients()),
      {
        id: 'agent',
        type: 'confidential',
        secretHash: await hashClientSecret('agent-secret'),
        redirectUris: [],
        grantTypes: [CIBA_GRANT],
        backchannelTokenDeliveryMode: 'poll',
      },
      {
        id: 'pinger',
        type: 'confidential',
        secretHash: await hashClientSecret('pinger-secret'),
        redirectUris: [],
        grantTypes: [CIBA_GRANT],
        backchannelTokenDeliveryMode: 'ping',
        backchannelClientNotificationEndpoint: 'https://agent.example.com/cb',
      },
    ]),
    ciba: {
      resolveLoginHint: (hint) => (hint === 'demo' ? 'user-1' : null),
      // Many runs: the bounds are tested elsewhere.
      maxRequestsPerClient: 1_000_000,
      maxPendingPerUser: 100,
      maxNotificationsPerUser: 10_000,
    },
  });
}

const values = fc.oneof(
  fc.string(),
  fc.constantFrom(
    CIBA_GRANT,
    'openid',
    'openid profile',
    'demo',
    'nobody',
    'eyJhbGciOiJFUzI1NiJ9.e30.sig',
    'AAAAAAAAAAAAAAAAAAAAAA.AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA',
    '60',
    '-1',
    '99999999999',
    'allow',
    'deny',
    '',
    '%',
    '\u0000',
    '\u2028',
    'a'.repeat(300),
  ),
  fc.string({ unit: 'binary', maxLength: 40 }),
);
const names = fc.constantFrom(
  'grant_type',
  'auth_req_id',
  'scope',
  'login_hint',
  'id_token_hint',
  'login_hint_token',
  'binding_message',
  'requested_expiry',
  'client_notification_token',
  'user_code',
  'acr_values',
  'request',
  'resource',
  'request_id',
  'decision',
  'csrf_token',
);
const formBody = fc.oneof(
  fc
    .array(fc.tuple(fc.oneof(names, fc.string()), values), { maxLength: 8 })
    .map((pairs) => pairs.map(([k, v]) => `${encodeURIComponent(k)}=${encodeURIComponent(v)}`).join('&')),
  fc.string({ maxLength: 200 }),
);

describe('backchannel authentication under malformed input', () => {
  it('answers the backchannel authentication and token endpoints with a 4xx JSON error, never a 5xx', async () => {
    const t = await instance();
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom('/oauth2/v1/backchannel_authentication', '/oauth2/v1/token'),
        formBody,
        fc.constantFrom(
          undefined,
          basic('agent', 'agent-secret'),
          basic('pinger', 'pinger-secret'),
          basic('agent', 'wrong'),
          'Basic %%%',
        ),
        async (path, body, authorization) => {
          const headers = new Headers({ 'Content-Type': 'application/x-www-form-urlencoded' });
          if (authorization) headers.set('Authorization', authorization);
          const response = await t.gatehouse.fetch(
            new Request(ISSUER + path, {
              method: 'POST',
              headers,
              body: `grant_type=${CIBA_GRANT}&${body}`,
            }),
          );
          expect(response.status).toBeLessThan(500);
          const json = (await response.json()) as Record<string, unknown>;
          if (response.status >= 400) expect(typeof json.error).toBe('string');
        },
      ),
      { numRuns: 400 },
    );
  });

  it('answers the approval page with an HTML page, never a 5xx', async () => {
    const t = await instance();
    await fc.assert(
      fc.asyncProperty(fc.constantFrom('GET', 'POST'), formBody, async (method, body) => {
        const request =
          method === 'GET'
            ? new Request(`${ISSUER}/approvals?${body}`, { headers: { Accept: 'text/html' } })
            : new Request(`${ISSUER}/approvals`, {
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
        if (response.status !== 303) expect(response.headers.get('content-type')).toMatch(/^text\/html/);
      }),
      { numRuns: 300 },
    );
  });
});
