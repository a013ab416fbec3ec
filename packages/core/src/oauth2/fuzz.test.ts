import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { basic, ISSUER, issueTokens, testInstance } from '../../test/fixtures';

const paths = ['/oauth2/v1/token', '/oauth2/v1/revoke', '/oauth2/v1/introspect'];
const params = [
  'grant_type',
  'code',
  'redirect_uri',
  'code_verifier',
  'refresh_token',
  'scope',
  'token',
  'token_type_hint',
  'client_id',
  'client_secret',
];
const values = fc.oneof(
  fc.string(),
  fc.constantFrom(
    'authorization_code',
    'refresh_token',
    'password',
    'demo-client',
    'demo-spa',
    '',
    '%',
    '%zz',
    '\u0000',
    'a'.repeat(300),
  ),
  fc.string({ unit: 'binary', maxLength: 40 }),
);
const formBody = fc.oneof(
  fc
    .array(fc.tuple(fc.oneof(fc.constantFrom(...params), fc.string()), values), { maxLength: 8 })
    .map((pairs) => pairs.map(([k, v]) => `${encodeURIComponent(k)}=${encodeURIComponent(v)}`).join('&')),
  fc.string({ maxLength: 200 }),
  fc.string({ unit: 'binary', maxLength: 200 }),
);
const authorization = fc.oneof(
  fc.constant(undefined),
  fc.constant(basic('demo-client', 'demo-secret')),
  fc.constant(basic('demo-client', 'wrong')),
  fc.string().map((s) => `Basic ${s}`),
  fc.string().map((s) => `Basic ${btoa(unescape(encodeURIComponent(s)))}`),
  fc.string().map((s) => `Bearer ${s}`),
  fc.string(),
);
const contentType = fc.oneof(
  fc.constant('application/x-www-form-urlencoded'),
  fc.constant('application/x-www-form-urlencoded; charset=UTF-8'),
  fc.constantFrom('application/json', 'text/plain', 'multipart/form-data', ''),
  fc.string(),
);

function safeHeaders(entries: [string, string | undefined][]): Headers {
  const headers = new Headers();
  for (const [name, value] of entries) {
    if (value === undefined) continue;
    try {
      headers.set(name, value);
    } catch {
      // Header values a real HTTP stack could not carry either.
    }
  }
  return headers;
}

describe('token, revoke and introspect under malformed input', () => {
  it('answer every malformed request with a 4xx JSON error, never a 5xx', async () => {
    const t = await testInstance();
    const { refresh_token, access_token } = await issueTokens(t);
    const known = fc.constantFrom(
      refresh_token,
      access_token,
      `${access_token}x`,
      access_token.split('.').reverse().join('.'),
    );
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom(...paths),
        fc.constantFrom('POST', 'POST', 'POST', 'GET', 'PUT', 'DELETE'),
        fc.oneof(
          formBody,
          known.map((token) => `token=${token}&refresh_token=${token}&grant_type=refresh_token`),
        ),
        authorization,
        contentType,
        async (path, method, body, auth, type) => {
          const request = new Request(ISSUER + path, {
            method,
            headers: safeHeaders([
              ['authorization', auth],
              ['content-type', type],
            ]),
            body: method === 'GET' ? undefined : body,
          });
          const response = await t.gatehouse.fetch(request);
          expect(response.status).toBeLessThan(500);
          const text = await response.text();
          const json = JSON.parse(text) as Record<string, unknown>;
          if (response.status >= 400) {
            expect(typeof json.error).toBe('string');
            expect(typeof json.error_description).toBe('string');
            expect(text).not.toMatch(/at .*\.ts:\d+|demo-secret/);
          }
        },
      ),
      { numRuns: 3000 },
    );
  });
});
