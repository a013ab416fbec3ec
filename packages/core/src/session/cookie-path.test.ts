import { ConfigurationError } from '@gatehousejs/core';
import { describe, expect, it } from 'vitest';
import { authorizeUrl, FakeBrowser, parseSetCookie, signIn } from '../../test/browser-flow';
import { testInstance } from '../../test/fixtures';
import { ORIGIN } from '../../test/protect-fixtures';

const SESSION = { schemes: ['bearer', 'session'] } as const;

/** A same-origin GET of a host route outside the instance path, as the browser sends it. */
function hostRoute(path: string, cookie?: string): Request {
  return new Request(`${ORIGIN}${path}`, {
    headers: { 'Sec-Fetch-Site': 'same-origin', ...(cookie ? { Cookie: cookie } : {}) },
  });
}

async function sessionCookieOf(login: Response) {
  const header = login.headers.getSetCookie().find((h) => h.startsWith('gatehouse_session='));
  return parseSetCookie(header!);
}

describe('session.cookiePath', () => {
  it('defaults to the instance path; a session route outside it gets a 401 that says why, and one warning', async () => {
    const warnings: string[] = [];
    const t = await testInstance({ logger: { warn: (m) => warnings.push(m), error() {} } });
    const cookie = await sessionCookieOf(await signIn(new FakeBrowser(t.gatehouse), authorizeUrl()));
    expect(cookie.attributes.path).toBe('/demo');
    for (let i = 0; i < 2; i++) {
      const result = await t.gatehouse.authenticate(hostRoute('/me'), SESSION);
      if (result.ok) throw new Error('expected a refusal');
      expect(result.response.status).toBe(401);
      const body = await result.response.json();
      expect(body.error_description).toContain('The session cookie is not sent to /me: its Path is /demo.');
    }
    expect(warnings).toHaveLength(1);
  });

  it('set to "/", the cookie reaches the host route and the session authenticates it', async () => {
    const t = await testInstance({ session: { cookiePath: '/' } });
    const login = await signIn(new FakeBrowser(t.gatehouse), authorizeUrl());
    const cookie = await sessionCookieOf(login);
    expect(cookie.attributes.path).toBe('/');
    const result = await t.gatehouse.authenticate(
      hostRoute('/me', `gatehouse_session=${cookie.value}`),
      SESSION,
    );
    expect(result).toMatchObject({ ok: true, caller: { sub: 'user-1', scheme: 'session' } });
  });

  it.each(['/other', '/dem', '/demo/', 'demo'])(
    'refuses %s, which is no path prefix of the instance path',
    async (cookiePath) => {
      const attempt = testInstance({ session: { cookiePath } });
      await expect(attempt).rejects.toThrow(ConfigurationError);
      await expect(testInstance({ session: { cookiePath } })).rejects.toThrow(
        /session.cookiePath: .* must be "\/" or a path prefix of the instance path "\/demo"/,
      );
    },
  );
});
