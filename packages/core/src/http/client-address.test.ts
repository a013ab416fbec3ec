import { clientAddressOf, setClientAddress } from '@gatehousejs/core/adapter';
import { describe, expect, it } from 'vitest';
import { ISSUER, testInstance, userBasic } from '../../test/fixtures';

/** A failing Auth API login for `username`, from `address` (as an adapter would record it). */
function wrongPassword(username: string, address?: string): Request {
  const request = new Request(`${ISSUER}/auth/v1/token`, {
    method: 'POST',
    headers: { Authorization: userBasic(username, 'wrong-password'), 'X-Forwarded-For': '198.51.100.99' },
  });
  setClientAddress(request, address);
  return request;
}

describe('client address', () => {
  it('is what the adapter recorded, cannot be replaced afterwards, and is unknown otherwise', () => {
    const request = new Request('http://localhost/');
    expect(clientAddressOf(request)).toBeUndefined();
    setClientAddress(request, '203.0.113.1');
    setClientAddress(request, '198.51.100.2');
    expect(clientAddressOf(request)).toBe('203.0.113.1');
  });

  it('records nothing for an empty or missing address', () => {
    for (const address of [undefined, '']) {
      const request = new Request('http://localhost/');
      setClientAddress(request, address);
      expect(clientAddressOf(request)).toBeUndefined();
    }
  });

  it('keys the per-address password limit by default, ignoring forwarding headers', async () => {
    const t = await testInstance({ rateLimit: { maxFailuresPerAddress: 3 } });
    for (const username of ['a', 'b', 'c']) {
      expect((await t.gatehouse.fetch(wrongPassword(username, '203.0.113.1'))).status).toBe(401);
    }
    // A fourth username from the same address is refused without a password check...
    const limited = await t.gatehouse.fetch(wrongPassword('d', '203.0.113.1'));
    expect(limited.status).toBe(429);
    expect(limited.headers.get('retry-after')).toMatch(/^\d+$/);
    // ...while another address, and requests whose address nobody recorded, are not.
    expect((await t.gatehouse.fetch(wrongPassword('d', '203.0.113.2'))).status).toBe(401);
    expect((await t.gatehouse.fetch(wrongPassword('e'))).status).toBe(401);
  });
});
