/**
 * The portal (issue 29) on every target that mounts it: the authorization request goes through the
 * interactions API — authorize without a portal session lands on the portal's own login page, the
 * portal finishes the interaction, the flow resumes with a code; a portal session alone gives codes
 * with no page; the portal's sign-out signs out of its OpenID Provider. Plain HTTP, hop by hop.
 */
import { createHash, randomBytes } from 'node:crypto';
import { PORTAL } from '@gatehousejs/demo';
import { expect, it } from 'vitest';
import { CookieClient, type RunningTarget } from './harness.js';

export function portalFlows(server: () => RunningTarget): void {
  const portal = (path = '') => `${server().origin}${PORTAL.path}${path}`;
  const callback = () => `${server().origin}/callback`;

  function authorize(params: Record<string, string> = {}) {
    const verifier = randomBytes(32).toString('base64url');
    const query = new URLSearchParams({
      response_type: 'code',
      client_id: PORTAL.client.id,
      redirect_uri: callback(),
      scope: PORTAL.scopes.join(' '),
      state: randomBytes(8).toString('hex'),
      code_challenge: createHash('sha256').update(verifier).digest('base64url'),
      code_challenge_method: 'S256',
      ...params,
    });
    return { url: portal(`/oauth2/v1/authorize?${query}`), verifier };
  }

  const location = (response: Response) => {
    expect(response.status).toBe(303);
    return new URL(response.headers.get('location')!, server().origin).href;
  };

  async function redeem(back: string, verifier: string) {
    const code = new URL(back).searchParams.get('code');
    expect(code, back).toBeTruthy();
    const response = await fetch(portal('/oauth2/v1/token'), {
      method: 'POST',
      headers: {
        Authorization: `Basic ${btoa(`${PORTAL.client.id}:${PORTAL.client.secret}`)}`,
        'Content-Type': 'application/x-www-form-urlencoded',
      },
      body: new URLSearchParams({
        grant_type: 'authorization_code',
        code: code!,
        redirect_uri: callback(),
        code_verifier: verifier,
      }),
    });
    expect(response.status).toBe(200);
    const { id_token } = (await response.json()) as { id_token: string };
    return JSON.parse(Buffer.from(id_token.split('.')[1]!, 'base64url').toString('utf8')) as Record<
      string,
      unknown
    >;
  }

  it('sends authorize to the portal’s login, resumes after it with a code (amr pwd), and then needs no page', async () => {
    const browser = new CookieClient();
    const first = authorize();
    const login = location(await browser.fetch(first.url));
    expect(login.startsWith(`${portal('/login')}?interaction=`)).toBe(true);
    const form = await browser.fetch(login);
    expect(await form.text()).toMatch(/name="email"[\s\S]*name="password"/);
    const resume = location(
      await browser.fetch(login, {
        method: 'POST',
        headers: { 'Content-Type': 'application/x-www-form-urlencoded', Origin: server().origin },
        body: new URLSearchParams({ email: PORTAL.user.email, password: PORTAL.user.password }),
      }),
    );
    expect(resume.startsWith(portal('/interaction/resume?interaction='))).toBe(true);
    const back = location(await browser.fetch(resume));
    expect(await redeem(back, first.verifier)).toMatchObject({ sub: PORTAL.user.sub, amr: ['pwd'] });

    // The portal's session alone (a browser the provider never saw): a code, no page.
    const fresh = new CookieClient();
    fresh.cookies.set(PORTAL.cookieName, browser.cookies.get(PORTAL.cookieName)!);
    const silent = authorize({ prompt: 'none' });
    expect(await redeem(location(await fresh.fetch(silent.url)), silent.verifier)).toMatchObject({
      sub: PORTAL.user.sub,
    });

    // Signed out of the portal: signed out of the provider.
    location(
      await browser.fetch(portal('/logout'), { method: 'POST', headers: { Origin: server().origin } }),
    );
    const after = new URL(location(await browser.fetch(authorize({ prompt: 'none' }).url)));
    expect(after.searchParams.get('error')).toBe('login_required');
  });
}
