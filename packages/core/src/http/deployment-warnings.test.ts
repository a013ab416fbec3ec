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

  it('warns on the first request at another origin whenever it comes, once per origin', async () => {
    const { gatehouse, warnings } = await watched();
    const metadata = (origin: string) =>
      gatehouse.fetch(new Request(`${origin}/demo/.well-known/openid-configuration`));
    // A health check at the issuer's origin comes first: it does not hide what comes later.
    expect((await metadata('http://localhost:3000')).status).toBe(200);
    expect(warnings).toEqual([]);
    await metadata('http://localhost:4000');
    await metadata('http://localhost:4000');
    await metadata('http://localhost:3000');
    await metadata('https://auth.example.com');
    expect(warnings).toEqual([
      expect.stringContaining('a request arrived at http://localhost:4000, but the issuer is'),
      expect.stringContaining('a request arrived at https://auth.example.com, but the issuer is'),
    ]);
    // Not taken for the issuer's origin: a port that begins like it.
    await metadata('http://localhost:30000');
    expect(warnings[2]).toContain('a request arrived at http://localhost:30000,');
  });

  it('remembers at most 16 other origins, and says so on the last warning', async () => {
    const { gatehouse, warnings } = await watched();
    for (let i = 0; i < 20; i++) {
      for (let repeat = 0; repeat < 2; repeat++) {
        const response = await gatehouse.fetch(
          new Request(`http://host-${i}.example/demo/.well-known/openid-configuration`),
        );
        expect(response.status).toBe(200);
      }
    }
    expect(warnings).toHaveLength(16);
    expect(warnings[15]).toContain('http://host-15.example');
    expect(warnings[15]).toContain(
      "16 origins other than the issuer's were warned about: further ones are not.",
    );
    expect(warnings.slice(0, 15).join('\n')).not.toContain('further ones');
  });

  it('warns on a bearer check at another origin after checks at the issuer origin', async () => {
    const t = await watched();
    const at = async (origin: string) => {
      const token = await authApiToken(t);
      const me = new Request(`${origin}/me`, { headers: { authorization: `Bearer ${token}` } });
      return (await t.gatehouse.authenticate(me, { schemes: ['bearer'] })).ok;
    };
    expect(await at('http://localhost:3000')).toBe(true);
    expect(t.warnings).toEqual([]);
    expect(await at('https://api.example.com')).toBe(true);
    expect(t.warnings).toEqual([expect.stringContaining('a request arrived at https://api.example.com')]);
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
