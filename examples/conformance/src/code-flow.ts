/**
 * The browser part of the authorization code flow over plain HTTP (authorize → login form → back
 * to the redirect URI), with a {@link CookieClient} as the browser: what the conformance flows, the
 * multi-process test and the Express example's client-library tests use to sign in without Chromium.
 */
import { createHash, randomBytes } from 'node:crypto';
import { CookieClient } from './harness.js';

const FORM = 'application/x-www-form-urlencoded';
export const NAVIGATION = { Accept: 'text/html', 'Sec-Fetch-Site': 'none', 'Sec-Fetch-Mode': 'navigate' };

const base64url = (bytes: Uint8Array) => Buffer.from(bytes).toString('base64url');

const decodeEntities = (text: string) =>
  text.replace(
    /&(amp|lt|gt|quot|#39|#96);/g,
    (_, entity: string) => ({ amp: '&', lt: '<', gt: '>', quot: '"', '#39': "'", '#96': '`' })[entity]!,
  );

/** A page's login form of the documented HTML contract (its action and hidden fields), if it has one. */
export function findLoginForm(html: string): { action: string; fields: Record<string, string> } | undefined {
  const form = /<form\b[^>]*\bmethod="post"[^>]*\baction="([^"]*)"/i.exec(html);
  if (!form || !/\bname="username"/.test(html) || !/\bname="password"/.test(html)) return undefined;
  const fields: Record<string, string> = {};
  for (const input of html.matchAll(/<input\b[^>]*>/gi)) {
    const tag = input[0];
    if (!/\btype="hidden"/i.test(tag)) continue;
    const name = /\bname="([^"]*)"/i.exec(tag)?.[1];
    const value = /\bvalue="([^"]*)"/i.exec(tag)?.[1] ?? '';
    if (name !== undefined) fields[decodeEntities(name)] = decodeEntities(value);
  }
  return { action: decodeEntities(form[1]!), fields };
}

/**
 * A browser's navigation to `url` on the server's own origin: GET, then each 302/303 the server
 * answers while it stays on that origin and short of `stopAt` (the client's redirect URI), as a
 * browser follows them (authorize → the login page of an interaction; the resume → the next page).
 * Returns the last answer and its URL.
 */
export async function navigate(
  browser: CookieClient,
  url: string,
  stopAt: (url: URL) => boolean = () => false,
  first?: Response,
): Promise<{ url: URL; response: Response }> {
  let location = new URL(url);
  let response = first ?? (await browser.fetch(location.href, { headers: NAVIGATION }));
  for (let hop = 0; hop < 8; hop++) {
    const next = response.headers.get('location');
    if ((response.status !== 302 && response.status !== 303) || next === null) break;
    const target = new URL(next, location);
    if (target.origin !== location.origin || stopAt(target)) break;
    location = target;
    response = await browser.fetch(location.href, {
      headers: { ...NAVIGATION, 'Sec-Fetch-Site': 'same-origin' },
    });
  }
  return { url: location, response };
}

/** {@link findLoginForm} for a page that must be the login page: throws with the page otherwise. */
export function parseLoginForm(html: string): { action: string; fields: Record<string, string> } {
  const form = findLoginForm(html);
  if (!form) throw new Error(`no login form (POST, username, password) in the page:\n${html.slice(0, 500)}`);
  return form;
}

/**
 * Navigates to `url` as a user would, with `browser`: follows redirects, signs in with
 * `credentials` when a login page appears, and stops at the first answer that is neither (or once
 * `stopAt` matches a redirect target, without requesting it). For flows a client library drives
 * (passport, openid-client), where {@link signIn}'s fixed authorize request does not fit. Returns
 * the last URL and its response (if requested).
 */
export async function navigateSigningIn(
  browser: CookieClient,
  url: string,
  credentials: { readonly username: string; readonly password: string },
  stopAt: (url: URL) => boolean = () => false,
): Promise<{ url: URL; response?: Response }> {
  let location = new URL(url);
  const navigation = { ...NAVIGATION, 'Sec-Fetch-Site': 'same-origin' };
  for (let hop = 0; hop < 12; hop++) {
    if (stopAt(location)) return { url: location };
    let response = await browser.fetch(location.href, { headers: navigation });
    if (response.status === 200 && /^text\/html/.test(response.headers.get('content-type') ?? '')) {
      const html = await response.text();
      const form = findLoginForm(html);
      if (!form) return { url: location, response: new Response(html, response) };
      response = await browser.fetch(new URL(form.action, location).href, {
        method: 'POST',
        headers: { 'Content-Type': FORM, Origin: location.origin, 'Sec-Fetch-Site': 'same-origin' },
        body: new URLSearchParams({ ...form.fields, ...credentials }),
      });
    }
    const next = response.headers.get('location');
    if (response.status < 300 || response.status > 399 || next === null) return { url: location, response };
    location = new URL(next, location);
  }
  throw new Error(`too many redirects, last ${location.href}`);
}

/** Who signs in where, for {@link signIn}. */
export interface SignInParameters {
  /** The instance's issuer (its routes are under it). */
  readonly issuer: string;
  /** The origin the login form is posted from (`Origin` header). */
  readonly origin: string;
  readonly clientId: string;
  readonly redirectUri: string;
  readonly scope: string;
  readonly username: string;
  readonly password: string;
  /** The browser, to reuse a session. Default: a new one. */
  readonly browser?: CookieClient;
}

/** What the client gets back: the callback's parameters, and what it must keep for the exchange. */
export interface SignedIn {
  readonly browser: CookieClient;
  readonly state: string;
  readonly verifier: string;
  /** The query of the redirect to the client (`code`, `state`, `iss`). */
  readonly callback: URLSearchParams;
}

/** Runs authorize → login → redirects with PKCE (S256); throws on any unexpected step. */
export async function signIn(parameters: SignInParameters): Promise<SignedIn> {
  const { issuer, origin, redirectUri } = parameters;
  const browser = parameters.browser ?? new CookieClient();
  const state = base64url(randomBytes(16));
  const verifier = base64url(randomBytes(32));
  const challenge = base64url(createHash('sha256').update(verifier).digest());
  const authorizeUrl = `${issuer}/oauth2/v1/authorize?${new URLSearchParams({
    response_type: 'code',
    client_id: parameters.clientId,
    redirect_uri: redirectUri,
    state,
    scope: parameters.scope,
    code_challenge: challenge,
    code_challenge_method: 'S256',
  })}`;
  // authorize → (303) the login page of the interaction.
  const { url: pageUrl, response: page } = await navigate(browser, authorizeUrl);
  const html = await page.text();
  if (page.status !== 200 || !page.headers.get('content-type')?.startsWith('text/html'))
    throw new Error(
      `authorize answered ${page.status} ${page.headers.get('content-type')}:\n${html.slice(0, 500)}`,
    );
  const form = parseLoginForm(html);
  if (!/^[A-Za-z0-9_-]{43}$/.test(form.fields.csrf_token ?? ''))
    throw new Error(`the login form's CSRF token is malformed: ${form.fields.csrf_token}`);

  const login = await browser.fetch(new URL(form.action, pageUrl).href, {
    method: 'POST',
    headers: { 'Content-Type': FORM, Origin: origin, 'Sec-Fetch-Site': 'same-origin' },
    body: new URLSearchParams({
      ...form.fields,
      username: parameters.username,
      password: parameters.password,
    }),
  });
  if (login.status !== 303)
    throw new Error(`login answered ${login.status}: ${(await login.text()).slice(0, 500)}`);

  // Follow the redirects (the resume, which starts the session and continues the request) to the client.
  let location = new URL(login.headers.get('location')!, pageUrl);
  for (let hop = 0; !location.href.startsWith(redirectUri) && hop < 5; hop++) {
    const next = await browser.fetch(location.href, {
      headers: { ...NAVIGATION, 'Sec-Fetch-Site': 'same-origin' },
    });
    if (next.status !== 302 && next.status !== 303)
      throw new Error(`${location.href} answered ${next.status}`);
    location = new URL(next.headers.get('location')!, location);
  }
  if (location.origin + location.pathname !== redirectUri)
    throw new Error(`the flow ended at ${location.href}, not at the redirect URI`);
  return { browser, state, verifier, callback: location.searchParams };
}
