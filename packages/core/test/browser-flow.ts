/**
 * A tiny stand-in for a browser, for tests through `gatehouse.fetch`: a cookie jar fed by
 * `Set-Cookie`, the browser headers of a same-origin form POST (`Origin`, `Sec-Fetch-Site`), and
 * a parser of Gatehouse's forms (action and hidden fields).
 */
import type { Gatehouse } from '@gatehousejs/core';
import { ISSUER, PKCE_CHALLENGE, REDIRECT_URI } from './fixtures';

export const ORIGIN = new URL(ISSUER).origin;

/** An HTML form: where it posts and its hidden fields (entities decoded). */
export interface ParsedForm {
  readonly action: string;
  readonly fields: Record<string, string>;
}

const ENTITIES: Record<string, string> = {
  '&amp;': '&',
  '&lt;': '<',
  '&gt;': '>',
  '&quot;': '"',
  '&#39;': "'",
  '&#96;': '`',
};
export const unescapeHtml = (s: string) => s.replace(/&(amp|lt|gt|quot|#39|#96);/g, (e) => ENTITIES[e]!);

/** The first POST form of a page. */
export function parseForm(html: string): ParsedForm {
  const form = /<form method="post" action="([^"]*)">([\s\S]*?)<\/form>/.exec(html);
  if (!form) throw new Error(`no form in page:\n${html}`);
  const fields: Record<string, string> = {};
  for (const input of form[2]!.matchAll(/<input type="hidden" name="([^"]*)" value="([^"]*)">/g)) {
    fields[unescapeHtml(input[1]!)] = unescapeHtml(input[2]!);
  }
  return { action: unescapeHtml(form[1]!), fields };
}

/** One `Set-Cookie` header, parsed. */
export interface SetCookie {
  readonly name: string;
  readonly value: string;
  readonly attributes: Record<string, string | true>;
}

export function parseSetCookie(header: string): SetCookie {
  const [pair, ...rest] = header.split(';');
  const eq = pair!.indexOf('=');
  const attributes: Record<string, string | true> = {};
  for (const part of rest) {
    const [k, ...v] = part.trim().split('=');
    attributes[k!.toLowerCase()] = v.length ? v.join('=') : true;
  }
  return {
    name: pair!.slice(0, eq).trim(),
    value: decodeURIComponent(pair!.slice(eq + 1).trim()),
    attributes,
  };
}

/** A cookie-keeping client of one Gatehouse instance. */
export class FakeBrowser {
  readonly cookies = new Map<string, string>();

  constructor(readonly gatehouse: Pick<Gatehouse, 'fetch'>) {}

  /** Sends a request with the jar's cookies; stores what comes back. */
  async fetch(url: string, init: RequestInit = {}): Promise<Response> {
    const headers = new Headers(init.headers);
    if (this.cookies.size > 0 && !headers.has('cookie')) {
      headers.set('Cookie', [...this.cookies].map(([k, v]) => `${k}=${v}`).join('; '));
    }
    const response = await this.gatehouse.fetch(new Request(new URL(url, ORIGIN), { ...init, headers }));
    for (const header of response.headers.getSetCookie()) {
      const cookie = parseSetCookie(header);
      if (cookie.attributes['max-age'] === '0') this.cookies.delete(cookie.name);
      else this.cookies.set(cookie.name, cookie.value);
    }
    return response;
  }

  /** One top-level GET, redirects not followed; `headers` add to the browser's. */
  getOnce(url: string, headers: Record<string, string> = {}): Promise<Response> {
    return this.fetch(url, { headers: { Accept: 'text/html', 'Sec-Fetch-Site': 'none', ...headers } });
  }

  /**
   * A top-level navigation (GET), following the instance's own 303s as a browser does (to the
   * built-in login and consent pages of an interaction, the resume, the device confirmation); stops
   * at any other answer, e.g. the redirect to the client.
   */
  async get(url: string, headers: Record<string, string> = {}): Promise<Response> {
    let response = await this.getOnce(url, headers);
    for (let hops = 0; hops < 10; hops++) {
      const next = response.headers.get('location');
      if (response.status !== 303 || !next || !isInstancePage(new URL(next, ORIGIN))) return response;
      response = await this.getOnce(next, headers);
    }
    throw new Error('too many redirects');
  }

  /**
   * Submits the page's form, as the browser would from the instance's own page. `headers` override
   * the browser's; an empty value removes one.
   */
  async submit(
    html: string,
    extra: Record<string, string> = {},
    headers: Record<string, string> = {},
  ): Promise<Response> {
    const form = parseForm(html);
    const all: Record<string, string> = {
      'Content-Type': 'application/x-www-form-urlencoded',
      Accept: 'text/html',
      Origin: ORIGIN,
      'Sec-Fetch-Site': 'same-origin',
      ...headers,
    };
    return this.fetch(form.action, {
      method: 'POST',
      headers: Object.entries(all).filter(([, v]) => v !== ''),
      body: new URLSearchParams({ ...form.fields, ...extra }).toString(),
    });
  }

  /** {@link submit}, then the instance's own 303s as a browser follows them ({@link get}). */
  async submitAndFollow(
    html: string,
    extra: Record<string, string> = {},
    headers: Record<string, string> = {},
  ): Promise<Response> {
    const response = await this.submit(html, extra, headers);
    const next = response.headers.get('location');
    const language = headers['Accept-Language'];
    return response.status === 303 && next && isInstancePage(new URL(next, ORIGIN))
      ? this.get(next, language ? { 'Accept-Language': language } : {})
      : response;
  }

  /** Follows a 303 `Location` (relative or absolute) with a GET, when it stays on the instance. */
  follow(response: Response): Promise<Response> {
    const location = response.headers.get('location');
    if (response.status !== 303 || !location) throw new Error(`expected a 303, got ${response.status}`);
    return this.get(location);
  }

  /** The session cookie's value, if any. */
  session(name = 'gatehouse_session'): string | undefined {
    return this.cookies.get(name);
  }
}

/**
 * The instance's pages a browser is sent to along a flow (never the authorization endpoint), of
 * any instance at `/{name}` (`createGatehouseHost` serves several).
 */
const FLOW_PAGE = /^\/[^/]+\/(login|consent|interaction\/resume|device\/confirm|approvals)$/;

function isInstancePage(url: URL): boolean {
  return url.origin === ORIGIN && FLOW_PAGE.test(url.pathname);
}

/** An authorize URL (absolute) for `client_id` with PKCE S256 and `state`, plus overrides (`null` removes). */
export function authorizeUrl(params: Record<string, string | null> = {}): string {
  const all: Record<string, string | null> = {
    response_type: 'code',
    client_id: 'demo-client',
    redirect_uri: REDIRECT_URI,
    scope: 'read',
    state: 'xyz',
    code_challenge: PKCE_CHALLENGE,
    code_challenge_method: 'S256',
    ...params,
  };
  const query = new URLSearchParams();
  for (const [k, v] of Object.entries(all)) if (v !== null) query.append(k, v);
  return `${ISSUER}/oauth2/v1/authorize?${query}`;
}

/**
 * Logs in through the login page `url` leads to; returns the response to the login POST (a 303 to
 * the resume, which `follow` continues).
 */
export async function logIn(
  browser: FakeBrowser,
  url: string,
  username = 'demo',
  password = 'demo-password',
): Promise<Response> {
  const page = await browser.get(url);
  if (page.status !== 200) throw new Error(`expected the login page, got ${page.status}`);
  return browser.submit(await page.text(), { username, password });
}

/**
 * Logs in through the login page `url` leads to and follows the resume: returns the resume's answer
 * (it sets the session cookie; then the redirect to the client, or the consent page).
 */
export async function signIn(
  browser: FakeBrowser,
  url: string,
  username = 'demo',
  password = 'demo-password',
): Promise<Response> {
  return browser.follow(await logIn(browser, url, username, password));
}

/** Parameters of a redirect to the client. */
export function callbackParams(response: Response): URLSearchParams {
  const location = response.headers.get('location');
  if (response.status !== 303 || !location)
    throw new Error(`expected a 303 redirect, got ${response.status}`);
  return new URL(location).searchParams;
}
