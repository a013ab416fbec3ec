import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { authorizeUrl, callbackParams, FakeBrowser, logIn } from '../../../test/browser-flow';
import { ISSUER, REDIRECT_URI, testInstance } from '../../../test/fixtures';

const names = [
  'response_type',
  'client_id',
  'redirect_uri',
  'scope',
  'state',
  'code_challenge',
  'code_challenge_method',
  'x',
];

describe('authorization endpoint under arbitrary input', () => {
  it('answers every request with a redirect to the sign-in page or to the registered URI, or a 400 page; never a 5xx', async () => {
    // Every run comes from one (unknown) address: its share of interactions must not be what answers.
    const t = await testInstance({ interactions: { maxPerNetwork: 100_000 } });
    const param = fc.tuple(
      fc.constantFrom(...names),
      fc.oneof(fc.string(), fc.constantFrom('code', 'demo-client', 'demo-spa', REDIRECT_URI, 'S256')),
    );
    await fc.assert(
      fc.asyncProperty(fc.array(param, { maxLength: 10 }), fc.boolean(), async (pairs, asPost) => {
        const query = new URLSearchParams(pairs);
        const request = asPost
          ? new Request(`${ISSUER}/oauth2/v1/authorize`, {
              method: 'POST',
              headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
              body: query.toString(),
            })
          : new Request(`${ISSUER}/oauth2/v1/authorize?${query}`);
        const response = await t.gatehouse.fetch(request);
        expect([200, 303, 400]).toContain(response.status);
        if (response.status === 303) {
          const location = response.headers.get('location')!;
          if (location.startsWith(`${ISSUER}/login?`)) {
            // A valid request that needs the user: the built-in sign-in page, with its interaction.
            expect(new URL(location).searchParams.get('interaction')).toMatch(/^[\w-]{43}$/);
          } else {
            expect(location.startsWith(`${REDIRECT_URI}?`)).toBe(true);
            expect(new URL(location).searchParams.get('iss')).toBe(ISSUER);
          }
        } else {
          expect(response.headers.get('content-type')).toMatch(/^text\/html/);
        }
      }),
      { numRuns: 300 },
    );
  });

  it('echoes any non-empty state exactly', async () => {
    const t = await testInstance();
    const browser = new FakeBrowser(t.gatehouse);
    await browser.follow(await logIn(browser, authorizeUrl()));
    await fc.assert(
      fc.asyncProperty(fc.string({ unit: 'grapheme', minLength: 1, maxLength: 600 }), async (state) => {
        const response = await browser.get(authorizeUrl({ state }));
        expect(callbackParams(response).get('state')).toBe(state);
      }),
      { numRuns: 200 },
    );
  });
});
