/**
 * The demo's confidential client (`demo-client`, the same id and secret on every demo instance) and
 * its user talking to one instance over HTTP: the requests the conformance flows make again and
 * again, bound to that instance's issuer.
 */
import { DEMO } from '@gatehousejs/demo';
import { expect } from 'vitest';
import { type SignedIn, signIn as signInOverHttp } from './code-flow.js';
import { CookieClient } from './harness.js';

/** The session cookie every demo instance sets (its `Path` is the instance's). */
export const SESSION_COOKIE = 'gatehouse_session';
/** What the flows ask for: an ID token, the tickets API and a refresh token. */
export const SCOPE = 'openid profile tickets:read offline_access';
export const FORM = 'application/x-www-form-urlencoded';

/** A token response (RFC 6749 §5.1) with the refresh token the demo client always gets. */
export interface TokenSet {
  access_token: string;
  token_type: string;
  expires_in: number;
  refresh_token: string;
  scope?: string;
}

/** RFC 6749 §2.3.1: client id and secret form-encoded, then Basic. */
export const basic = (id: string, secret: string) =>
  `Basic ${Buffer.from(`${encodeURIComponent(id)}:${encodeURIComponent(secret)}`).toString('base64')}`;
/** The Auth API's user Basic credentials (RFC 7617, UTF-8, not form-encoded). */
export const userBasic = (username: string, password: string) =>
  `Basic ${Buffer.from(`${username}:${password}`, 'utf8').toString('base64')}`;
export const CLIENT_AUTH = basic(DEMO.client.id, DEMO.client.secret);

/** The demo client at one instance. */
export interface InstanceClient {
  /** The instance's issuer, `{origin}/{instance}`. */
  readonly issuer: string;
  /** The server's origin (the login form is posted from it). */
  readonly origin: string;
  /** The demo client's redirect URI, `{origin}/callback`. */
  readonly redirectUri: string;
  /** `issuer + path`. */
  at(path: string): string;
  /** authorize → login form → callback with the demo user; asserts the session cookie was set. */
  signIn(browser?: CookieClient): Promise<SignedIn>;
  /** POST to the token endpoint, authenticated as the demo client unless told otherwise. */
  tokenRequest(fields: Record<string, string> | string, authorization?: string): Promise<Response>;
  /** Redeems a code (asserting 200). */
  exchange(code: string, verifier: string): Promise<TokenSet>;
  /** {@link signIn}, then {@link exchange}. */
  signedInTokens(): Promise<SignedIn & { tokens: TokenSet }>;
  /** RFC 7662 introspection, authenticated as the demo client unless told otherwise. */
  introspect(token: string, authorization?: string): Promise<Response>;
  /** The tickets API of the instance (`POST {issuer}/api/v1/tickets`). */
  tickets(headers: Record<string, string>, body?: string): Promise<Response>;
}

/** The demo client at the instance `instance` of the server at `origin`. */
export function instanceClient(origin: string, instance: string): InstanceClient {
  const issuer = `${origin}/${instance}`;
  const redirectUri = `${origin}/callback`;
  const at = (path: string) => issuer + path;

  const tokenRequest = (fields: Record<string, string> | string, authorization = CLIENT_AUTH) =>
    fetch(at('/oauth2/v1/token'), {
      method: 'POST',
      headers: { 'Content-Type': FORM, Authorization: authorization },
      body: typeof fields === 'string' ? fields : new URLSearchParams(fields),
    });

  async function signIn(browser = new CookieClient()): Promise<SignedIn> {
    const flow = await signInOverHttp({
      issuer,
      origin,
      clientId: DEMO.client.id,
      redirectUri,
      scope: SCOPE,
      username: DEMO.user.username,
      password: DEMO.user.password,
      browser,
    });
    expect(browser.cookies.has(SESSION_COOKIE)).toBe(true);
    return flow;
  }

  async function exchange(code: string, verifier: string): Promise<TokenSet> {
    const response = await tokenRequest({
      grant_type: 'authorization_code',
      code,
      redirect_uri: redirectUri,
      code_verifier: verifier,
    });
    expect(response.status).toBe(200);
    return (await response.json()) as TokenSet;
  }

  return {
    issuer,
    origin,
    redirectUri,
    at,
    signIn,
    tokenRequest,
    exchange,
    async signedInTokens() {
      const flow = await signIn();
      return { ...flow, tokens: await exchange(flow.callback.get('code')!, flow.verifier) };
    },
    introspect: (token, authorization = CLIENT_AUTH) =>
      fetch(at('/oauth2/v1/introspect'), {
        method: 'POST',
        headers: { 'Content-Type': FORM, Authorization: authorization },
        body: new URLSearchParams({ token }),
      }),
    tickets: (headers, body = '{"limit":3}') =>
      fetch(at('/api/v1/tickets'), {
        method: 'POST',
        headers: { 'Content-Type': 'application/json', ...headers },
        body,
      }),
  };
}
