/**
 * Issue 29, item 7, over HTTP against the Express example (`pnpm start`): the portal at /portal/ is
 * a host app with its own users, sessions and login page; its OpenID Provider (issuer
 * {origin}/portal) never shows a login page of its own and hands sign-in to the portal.
 */
import { createHash, randomBytes } from 'node:crypto';
import { BUILT_IN_STYLESHEET } from '@gatehousejs/core/ui';
import { decodeJwt } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type DemoServer, startDemoServer } from './support/demo-server';

const CLIENT = `Basic ${btoa('portal-client:portal-secret')}`;
const SCOPE = 'openid profile email offline_access tickets:read';

/** A cookie jar honouring `Path` (the demo and the portal both have a `gatehouse_session`). */
class Jar {
  readonly cookies = new Map<string, { name: string; value: string; path: string }>();
  header(url: string): string {
    const path = new URL(url).pathname;
    return [...this.cookies.values()]
      .filter((c) => c.path === '/' || path === c.path || path.startsWith(`${c.path}/`))
      .map((c) => `${c.name}=${c.value}`)
      .join('; ');
  }
  store(response: Response): void {
    for (const header of response.headers.getSetCookie()) {
      const [pair, ...attributes] = header.split(';').map((s) => s.trim());
      const eq = pair!.indexOf('=');
      const name = pair!.slice(0, eq);
      const value = pair!.slice(eq + 1);
      const path = attributes.find((a) => a.toLowerCase().startsWith('path='))?.slice(5) ?? '/';
      const gone = attributes.some((a) => a.toLowerCase() === 'max-age=0') || value === '';
      if (gone) this.cookies.delete(`${name};${path}`);
      else this.cookies.set(`${name};${path}`, { name, value, path });
    }
  }
  value(name: string): string | undefined {
    return [...this.cookies.values()].find((c) => c.name === name)?.value;
  }
}

describe('the portal: a host app whose own sign-in the OpenID Provider uses', () => {
  let server: DemoServer;
  const portal = (path = '') => `${server.origin}/portal${path}`;
  const callback = () => `${server.origin}/callback`;

  beforeAll(async () => {
    server = await startDemoServer();
  }, 30_000);
  afterAll(async () => {
    await server?.stop();
  });

  /** A browser navigation or form post, without following redirects. */
  async function visit(jar: Jar, url: string, init: RequestInit = {}): Promise<Response> {
    const headers = new Headers(init.headers);
    const cookie = jar.header(url);
    if (cookie) headers.set('Cookie', cookie);
    if (!headers.has('Accept')) headers.set('Accept', 'text/html');
    const response = await fetch(url, { ...init, headers, redirect: 'manual' });
    jar.store(response);
    return response;
  }

  const location = (response: Response) => {
    expect(response.status, `expected a redirect, got ${response.status}`).toBe(303);
    return new URL(response.headers.get('location')!, server.origin).href;
  };

  function authorizeRequest(params: Record<string, string> = {}) {
    const verifier = randomBytes(32).toString('base64url');
    const challenge = createHash('sha256').update(verifier).digest('base64url');
    const query = new URLSearchParams({
      response_type: 'code',
      client_id: 'portal-client',
      redirect_uri: callback(),
      scope: SCOPE,
      state: randomBytes(8).toString('hex'),
      nonce: randomBytes(8).toString('hex'),
      code_challenge: challenge,
      code_challenge_method: 'S256',
      ...params,
    });
    return { url: portal(`/oauth2/v1/authorize?${query}`), verifier, state: query.get('state')! };
  }

  /** Posts the portal's login form (as the browser does, from the portal's own page). */
  async function submitLogin(jar: Jar, loginUrl: string, password = 'alice-password') {
    const form = await visit(jar, loginUrl);
    expect(form.status).toBe(200);
    const html = await form.text();
    expect(html).toMatch(/<input[^>]*name="email"/);
    expect(html).toMatch(/<input[^>]*name="password"/);
    const action = /<form method="post" action="([^"]+)"/.exec(html)![1]!.replace(/&amp;/g, '&');
    return visit(jar, new URL(action, server.origin).href, {
      method: 'POST',
      headers: { 'Content-Type': 'application/x-www-form-urlencoded', Origin: server.origin },
      body: new URLSearchParams({ email: 'alice@example.com', password }),
    });
  }

  async function tokens(code: string, verifier: string) {
    const response = await fetch(portal('/oauth2/v1/token'), {
      method: 'POST',
      headers: { Authorization: CLIENT, 'Content-Type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({
        grant_type: 'authorization_code',
        code,
        redirect_uri: callback(),
        code_verifier: verifier,
      }),
    });
    expect(response.status).toBe(200);
    return (await response.json()) as { access_token: string; id_token: string; refresh_token?: string };
  }

  /** Signs in through the portal from a browser with no session; returns the jar, the tokens and the login time. */
  async function signInThroughPortal(params: Record<string, string> = {}) {
    const jar = new Jar();
    const request = authorizeRequest(params);
    const loginUrl = location(await visit(jar, request.url));
    expect(loginUrl.startsWith(`${portal('/login')}?interaction=`)).toBe(true);
    const before = Math.floor(Date.now() / 1000);
    const resume = location(await submitLogin(jar, loginUrl));
    expect(resume.startsWith(portal('/interaction/resume?interaction='))).toBe(true);
    const back = new URL(location(await visit(jar, resume)));
    expect(back.origin + back.pathname).toBe(callback());
    expect(back.searchParams.get('state')).toBe(request.state);
    expect(back.searchParams.get('iss')).toBe(portal());
    const set = await tokens(back.searchParams.get('code')!, request.verifier);
    return { jar, set, before, after: Math.ceil(Date.now() / 1000) };
  }

  it('is an OpenID Provider at {origin}/portal, beside the demo and acme instances', async () => {
    const discovery = await fetch(portal('/.well-known/openid-configuration'));
    expect(discovery.status).toBe(200);
    const metadata = (await discovery.json()) as Record<string, unknown>;
    expect(metadata.issuer).toBe(portal());
    expect(metadata.authorization_endpoint).toBe(portal('/oauth2/v1/authorize'));
    for (const name of ['demo', 'acme']) {
      const other = await fetch(`${server.origin}/.well-known/oauth-authorization-server/${name}`);
      expect(((await other.json()) as { issuer: string }).issuer).toBe(`${server.origin}/${name}`);
      expect((await fetch(`${server.origin}/${name}/.well-known/openid-configuration`)).status).toBe(200);
    }
  });

  it('sends a browser without a portal session to /portal/login, and resumes after the portal’s login', async () => {
    const { jar, set, before, after } = await signInThroughPortal();
    const id = decodeJwt(set.id_token);
    expect(id.sub).toBe('alice');
    expect(id.iss).toBe(portal());
    expect(id.amr).toContain('pwd');
    expect(id.auth_time).toBeGreaterThanOrEqual(before);
    expect(id.auth_time).toBeLessThanOrEqual(after);
    expect(set.refresh_token).toBeTruthy(); // offline_access
    const userinfo = await fetch(portal('/oauth2/v1/userinfo'), {
      headers: { Authorization: `Bearer ${set.access_token}` },
    });
    expect(await userinfo.json()).toMatchObject({
      sub: 'alice',
      name: 'Alice Example',
      email: 'alice@example.com',
    });
    const home = await visit(jar, portal('/'));
    expect(await home.text()).toContain('alice@example.com');
  });

  it('shows its pages in the built-in pages’ look, and its consent page says what each scope allows', async () => {
    const browser = new Jar();
    const loginPage = await (
      await visit(browser, location(await visit(browser, authorizeRequest().url)))
    ).text();
    // The portal's login page carries the built-in pages' stylesheet, its content in their card.
    expect(loginPage).toContain(`<style>${BUILT_IN_STYLESHEET}</style>`);
    expect(loginPage).toMatch(/<main>[\s\S]*<h1>Sign in to the portal<\/h1>[\s\S]*<\/main>/);
    const home = await (await visit(new Jar(), portal('/'))).text();
    expect(home).toContain(`<style>${BUILT_IN_STYLESHEET}</style>`);

    // Signed in, prompt=consent: the portal's consent page, in words, with the same fields.
    const { jar } = await signInThroughPortal();
    const consentUrl = location(await visit(jar, authorizeRequest({ prompt: 'consent' }).url));
    const consentPage = await (await visit(jar, consentUrl)).text();
    expect(consentPage).toContain(`<style>${BUILT_IN_STYLESHEET}</style>`);
    expect(consentPage).toContain('<li title="tickets:read">Read your support tickets</li>');
    expect(consentPage).toContain('<li title="openid">Know who you are: an identifier of your account</li>');
    expect(consentPage).toContain('<button type="submit" name="decision" value="allow">Allow</button>');
    expect(consentPage).toContain(
      '<button type="submit" name="decision" value="deny" class="secondary">Deny</button>',
    );
  });

  it('never shows a login page of its own: a wrong password stays on the portal’s form', async () => {
    const jar = new Jar();
    const loginUrl = location(await visit(jar, authorizeRequest().url));
    const failed = await submitLogin(jar, loginUrl, 'wrong-password');
    expect(failed.status).toBe(400);
    expect(await failed.text()).toContain('The email or password is incorrect.');
    expect(jar.value('portal_session')).toBeUndefined();
    expect(jar.value('gatehouse_session')).toBeUndefined();
  });

  it('gives a code with no page at all to a browser with a portal session alone, plain and prompt=none', async () => {
    const { jar } = await signInThroughPortal();
    // A browser the authorization server has never seen: only the portal's cookie.
    const fresh = new Jar();
    const portalCookie = [...jar.cookies.values()].find((c) => c.name === 'portal_session')!;
    fresh.cookies.set('portal_session;/portal', portalCookie);
    expect(fresh.value('gatehouse_session')).toBeUndefined();
    for (const params of [{}, { prompt: 'none' }] as Record<string, string>[]) {
      const request = authorizeRequest(params);
      const back = new URL(location(await visit(fresh, request.url)));
      expect(back.origin + back.pathname).toBe(callback());
      const set = await tokens(back.searchParams.get('code')!, request.verifier);
      expect(decodeJwt(set.id_token)).toMatchObject({ sub: 'alice', amr: ['pwd'] });
    }
  });

  it('sends the browser to the portal’s login again for prompt=login and max_age, with auth_time in the ID token', async () => {
    const { jar } = await signInThroughPortal();
    for (const params of [{ prompt: 'login' }, { max_age: '0' }] as Record<string, string>[]) {
      const request = authorizeRequest(params);
      const loginUrl = location(await visit(jar, request.url));
      expect(loginUrl.startsWith(`${portal('/login')}?interaction=`)).toBe(true);
      const back = new URL(location(await visit(jar, location(await submitLogin(jar, loginUrl)))));
      const set = await tokens(back.searchParams.get('code')!, request.verifier);
      expect(typeof decodeJwt(set.id_token).auth_time).toBe('number');
    }
    // max_age satisfied by the portal session: no page, and auth_time present.
    const request = authorizeRequest({ max_age: '3600' });
    const back = new URL(location(await visit(jar, request.url)));
    const set = await tokens(back.searchParams.get('code')!, request.verifier);
    expect(typeof decodeJwt(set.id_token).auth_time).toBe('number');
  });

  it('answers prompt=none without a portal session with login_required at the redirect URI', async () => {
    const back = new URL(location(await visit(new Jar(), authorizeRequest({ prompt: 'none' }).url)));
    expect(back.origin + back.pathname).toBe(callback());
    expect(back.searchParams.get('error')).toBe('login_required');
    expect(back.searchParams.get('iss')).toBe(portal());
  });

  it('keeps the session on a cross-site POST to /portal/logout, and ends it on a same-origin one', async () => {
    const { jar } = await signInThroughPortal();
    for (const headers of [
      { Origin: 'https://evil.example' },
      { Origin: 'null' },
      { 'Sec-Fetch-Site': 'cross-site' },
    ] as Record<string, string>[]) {
      const refused = await visit(jar, portal('/logout'), { method: 'POST', headers });
      expect(refused.status).toBe(403);
    }
    expect(await (await visit(jar, portal('/'))).text()).toContain('alice@example.com');
    const none = new URL(location(await visit(jar, authorizeRequest({ prompt: 'none' }).url)));
    expect(none.searchParams.get('code')).toBeTruthy();

    const out = await visit(jar, portal('/logout'), { method: 'POST', headers: { Origin: server.origin } });
    expect(out.status).toBe(303);
    expect(await (await visit(jar, portal('/'))).text()).not.toContain('alice@example.com');
    const after = new URL(location(await visit(jar, authorizeRequest({ prompt: 'none' }).url)));
    expect(after.searchParams.get('error')).toBe('login_required');
  });

  it('has its tokens refused by the demo instance, and never takes the portal cookie as a bearer token', async () => {
    const { jar, set } = await signInThroughPortal();
    const atDemo = await fetch(`${server.origin}/demo/oauth2/v1/userinfo`, {
      headers: { Authorization: `Bearer ${set.access_token}` },
    });
    expect(atDemo.status).toBe(401);
    expect(atDemo.headers.get('www-authenticate')).toContain('error="invalid_token"');
    const cookie = jar.value('portal_session')!;
    const asBearer = await fetch(portal('/oauth2/v1/userinfo'), {
      headers: { Authorization: `Bearer ${cookie}` },
    });
    expect(asBearer.status).toBe(401);
    const asCookie = await fetch(portal('/oauth2/v1/userinfo'), {
      headers: { Cookie: `portal_session=${cookie}`, Accept: 'application/json' },
    });
    expect(asCookie.status).toBe(401);
  });
});
