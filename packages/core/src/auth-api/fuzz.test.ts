import fc from 'fast-check';
import { beforeAll, describe, expect, it } from 'vitest';
import {
  authApiToken,
  basic,
  ISSUER,
  issueTokens,
  type TestInstance,
  testInstance,
  userBasic,
} from '../../test/fixtures';

// Arbitrary methods, headers and bodies against the three Auth API endpoints: every answer must be
// a well-formed 200 or 4xx JSON document, never a 5xx.

const PATHS = ['/auth/v1/token', '/auth/v1/token/introspect', '/auth/v1/token/revoke'] as const;
const RUNS_PER_ENDPOINT = 1000;

let t: TestInstance;
let validTokens: string[];

beforeAll(async () => {
  t = await testInstance({
    rateLimit: { clientAddress: (request) => request.headers.get('x-address') ?? undefined },
  });
  const oauth = await issueTokens(t);
  validTokens = [await authApiToken(t), await authApiToken(t), oauth.access_token, oauth.refresh_token];
});

/** Characters a header value may hold (visible ASCII and space). */
const headerText = fc.string({
  unit: fc.integer({ min: 0x20, max: 0x7e }).map((c) => String.fromCharCode(c)),
  maxLength: 80,
});
const base64Of = (text: string) => btoa(String.fromCharCode(...new TextEncoder().encode(text)));

const authorization = fc.oneof(
  fc.constant(undefined),
  headerText,
  headerText.map((text) => `Basic ${text}`),
  headerText.map((text) => `Bearer ${text}`),
  fc.string({ maxLength: 40 }).map((text) => `Basic ${base64Of(text)}`),
  fc
    .tuple(
      fc.constantFrom('demo', 'demo', 'nobody', 'DEMO', ''),
      fc.constantFrom('demo-password', 'demo-password', 'wrong', ''),
    )
    .map(([u, p]) => userBasic(u, p)),
  fc.constantFrom(basic('demo-client', 'demo-secret'), basic('demo-client', 'nope'), basic('demo-spa', '')),
  fc.nat(3).map((i) => `Bearer ${validTokens[i]}`),
  fc.nat(3).map((i) => `bearer  ${validTokens[i]!.slice(0, -3)}`),
);

const contentType = fc.option(
  fc.oneof(
    fc.constantFrom(
      'application/x-www-form-urlencoded',
      'application/json',
      'text/plain; charset=utf-8',
      'multipart/form-data',
    ),
    headerText,
  ),
  { nil: undefined },
);

const body = fc.option(
  fc.oneof(
    fc.string({ maxLength: 200 }),
    fc.nat(3).map((i) => `token=${encodeURIComponent(validTokens[i]!)}`),
    fc.nat(3).map((i) => `token=${encodeURIComponent(validTokens[i]!)}&token=x&client_id=demo-spa`),
    fc
      .dictionary(
        fc.constantFrom('token', 'token_type_hint', 'client_id', 'client_secret', 'username', 'password'),
        fc.string({ maxLength: 30 }),
      )
      .map((record) => new URLSearchParams(record).toString()),
    fc.uint8Array({ maxLength: 100 }),
  ),
  { nil: undefined, freq: 2 },
);

/** Mostly a few addresses, so that the rate limiter's 429 path is fuzzed too. */
const address = fc.oneof(fc.constantFrom('192.0.2.1', '192.0.2.2'), fc.ipV4());

const method = fc.oneof(
  { arbitrary: fc.constant('POST'), weight: 8 },
  { arbitrary: fc.constantFrom('GET', 'HEAD', 'PUT', 'DELETE', 'PATCH', 'OPTIONS', 'post'), weight: 2 },
);

describe.each(PATHS)('fuzz %s', (path) => {
  it('answers every request with 200 or a 4xx JSON error, never a 5xx', async () => {
    await fc.assert(
      fc.asyncProperty(
        method,
        authorization,
        contentType,
        body,
        address,
        async (m, auth, type, payload, from) => {
          const headers = new Headers({ 'x-address': from });
          if (auth !== undefined) headers.set('authorization', auth);
          if (type !== undefined) headers.set('content-type', type);
          const upper = m.toUpperCase();
          const hasBody = upper !== 'GET' && upper !== 'HEAD' && payload !== undefined;
          const response = await t.gatehouse.fetch(
            new Request(ISSUER + path, { method: m, headers, ...(hasBody ? { body: payload } : {}) }),
          );
          expect(response.status === 200 || (response.status >= 400 && response.status < 500)).toBe(true);
          if (upper === 'HEAD') return;
          expect(response.headers.get('content-type')).toMatch(/^application\/json/);
          const json = await response.json();
          if (response.status === 200) {
            expect(typeof json).toBe('object');
          } else {
            expect(typeof json.error).toBe('string');
            expect(typeof json.error_description).toBe('string');
          }
          if (response.status === 401) expect(response.headers.get('www-authenticate')).toBeTruthy();
        },
      ),
      { numRuns: RUNS_PER_ENDPOINT },
    );
  });
});
