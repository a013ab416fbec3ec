/**
 * The demo's RFC 7591 budget (issue 27 item 1): 20 registrations per address and hour, close to
 * the library's default of 10, not the 100 it once allowed.
 */
import { createDemo, DEMO_REGISTRATION } from '@gatehousejs/demo';
import { describe, expect, it } from 'vitest';

describe('the demo registration budget', () => {
  it('accepts 20 registrations from one address in an hour and answers the 21st 429 with Retry-After', async () => {
    expect(DEMO_REGISTRATION.dynamicRegistration.maxPerAddress).toBe(20);
    const demo = await createDemo({ port: 3997, warn: () => {} });
    const register = () =>
      demo.gatehouse.fetch(
        new Request(`${demo.issuer}/oauth2/v1/register`, {
          method: 'POST',
          headers: { 'Content-Type': 'application/json' },
          body: JSON.stringify({ client_name: 'Budget', redirect_uris: ['http://localhost:3997/cb'] }),
        }),
      );
    for (let i = 0; i < 20; i++) expect((await register()).status).toBe(201);
    const refused = await register();
    expect(refused.status).toBe(429);
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
  });
});
