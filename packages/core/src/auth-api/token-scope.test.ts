import { describe, expect, it } from 'vitest';
import { basic, ISSUER, testInstance } from '../../test/fixtures';
import { protectInstance } from '../../test/protect-fixtures';

function bearer(token: string): Request {
  return new Request(`${ISSUER}/api/v1/tickets`, { headers: { Authorization: `Bearer ${token}` } });
}

describe('the scope of Auth API tokens (authApi.scope)', () => {
  it('is empty by default: the token passes operations that require no scope, and 403 for any other', async () => {
    const t = await protectInstance();
    const token = await t.authApiToken();
    expect((await t.gatehouse.authenticate(bearer(token), { schemes: ['bearer'] })).ok).toBe(true);
    const refused = await t.gatehouse.authenticate(bearer(token), { schemes: ['bearer'], scope: 'read' });
    expect(refused.ok ? 200 : refused.response.status).toBe(403);
  });

  it('is the configured set: reported in the token response, and operations requiring it accept the token', async () => {
    const t = await protectInstance({ scopes: ['read', 'write', 'admin'], authApi: { scope: 'read write' } });
    const response = await t.gatehouse.fetch(
      new Request(`${ISSUER}/auth/v1/token`, {
        method: 'POST',
        headers: { Authorization: basic('demo', 'demo-password') },
      }),
    );
    const body = (await response.json()) as { access_token: string; scope: string };
    expect(body.scope).toBe('read write');
    const token = body.access_token;
    const result = await t.gatehouse.authenticate(bearer(token), { schemes: ['bearer'], scope: 'read' });
    expect(result).toMatchObject({ ok: true, caller: { scope: ['read', 'write'] } });
    const admin = await t.gatehouse.authenticate(bearer(token), { schemes: ['bearer'], scope: 'admin' });
    expect(admin.ok ? 200 : admin.response.status).toBe(403);
  });

  it('must be made of the instance scopes', async () => {
    await expect(testInstance({ scopes: ['read'], authApi: { scope: 'read admin' } })).rejects.toThrow(
      'authApi.scope: "admin" is not in scopes.',
    );
  });
});
