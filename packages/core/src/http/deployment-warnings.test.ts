import { checkMountPath } from '@gatehousejs/core/adapter';
import { describe, expect, it } from 'vitest';
import { authApiToken, testInstance } from '../../test/fixtures';

/** An instance (issuer http://localhost:3000/demo) whose warnings are collected. */
async function watched() {
  const warnings: string[] = [];
  const t = await testInstance({ logger: { warn: (message) => warnings.push(message), error() {} } });
  return { ...t, warnings };
}

describe('a request at an origin other than the issuer', () => {
  it('logs one warning naming both origins, proxies and the fix, and is still answered', async () => {
    const { gatehouse, warnings } = await watched();
    for (let i = 0; i < 3; i++) {
      const response = await gatehouse.fetch(
        new Request('http://localhost:4000/demo/.well-known/openid-configuration'),
      );
      expect(response.status).toBe(200);
      // The metadata names the issuer, not the address the request came to: the mistake warned about.
      expect((await response.json()).issuer).toBe('http://localhost:3000/demo');
    }
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toContain('a request arrived at http://localhost:4000');
    expect(warnings[0]).toContain('the issuer is http://localhost:3000/demo');
    expect(warnings[0]).toContain('point at http://localhost:3000');
    expect(warnings[0]).toContain('proxy');
    expect(warnings[0]).toContain("app.set('trust proxy'");
  });

  it('is noticed on the bearer check too, when that is the first request', async () => {
    const { gatehouse, warnings } = await watched();
    const result = await gatehouse.authenticate(new Request('https://api.example.com/me'), {
      schemes: ['bearer'],
    });
    expect(result.ok).toBe(false);
    expect(warnings).toEqual([expect.stringContaining('a request arrived at https://api.example.com')]);
  });

  it('logs nothing when requests come to the issuer origin', async () => {
    const t = await watched();
    const token = await authApiToken(t);
    const me = new Request('http://localhost:3000/me', { headers: { authorization: `Bearer ${token}` } });
    expect((await t.gatehouse.authenticate(me, { schemes: ['bearer'] })).ok).toBe(true);
    expect(t.warnings).toEqual([]);
  });
});

describe('an instance reached outside its issuer path', () => {
  it('answers 404 and logs one warning naming the path and the issuer path', async () => {
    const { gatehouse, warnings } = await watched();
    for (const path of ['/auth/oauth2/v1/token', '/auth/.well-known/openid-configuration']) {
      expect((await gatehouse.fetch(new Request(`http://localhost:3000${path}`))).status).toBe(404);
    }
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toContain('a request for /auth/oauth2/v1/token reached the instance');
    expect(warnings[0]).toContain('whose routes are all below /demo');
  });

  it('logs nothing for an unknown path below the issuer path or a well-known location', async () => {
    const { gatehouse, warnings } = await watched();
    for (const path of ['/demo/nothing-here', '/.well-known/security.txt']) {
      expect((await gatehouse.fetch(new Request(`http://localhost:3000${path}`))).status).toBe(404);
    }
    expect(warnings).toEqual([]);
  });

  it('is told by an adapter mounted at a path where no route lies, once', async () => {
    const { gatehouse, warnings } = await watched();
    for (const fits of ['/demo', '/.well-known', '/demo/oauth2', '/']) checkMountPath(gatehouse, fits);
    expect(warnings).toEqual([]);
    checkMountPath(gatehouse, '/auth');
    checkMountPath(gatehouse, '/auth');
    checkMountPath(gatehouse, '/other');
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toContain('is mounted at /auth, but its routes are below /demo');
    expect(warnings[0]).toContain("app.use('/demo', gatehouse(instance))");
  });
});
