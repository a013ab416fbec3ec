/**
 * Conformance flow of OpenID Connect Back-Channel Logout 1.0, over real HTTP against one running
 * server: a relying party registers itself (RFC 7591) with a back-channel logout URI on a loopback
 * listener of this process (the demo's development setting), signs the demo user in (login, consent),
 * redeems its code; the user signs out on the logout page; the listener receives the logout token
 * and validates it as §2.6 says against the JWKS the server publishes (node:crypto, nothing of
 * Gatehouse's). The same on every adapter.
 */
import { createPublicKey, type JsonWebKey, verify } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { DEMO } from '@gatehousejs/demo';
import { expect, it } from 'vitest';
import { NAVIGATION, navigateSigningIn } from './code-flow.js';
import { CookieClient } from './harness.js';
import { FORM } from './instance-client.js';

const EVENT = 'http://schemas.openid.net/event/backchannel-logout';

/** One logout request as the listener received it. */
interface LogoutRequest {
  readonly contentType: string;
  readonly token: string;
}

/** A loopback listener standing for the relying party's back-channel logout endpoint. */
async function logoutEndpoint(): Promise<{
  readonly uri: string;
  readonly next: Promise<LogoutRequest>;
  close(): Promise<void>;
}> {
  let received: (request: LogoutRequest) => void;
  const next = new Promise<LogoutRequest>((resolve) => {
    received = resolve;
  });
  const server: Server = createServer(async (request, response) => {
    const chunks: Buffer[] = [];
    for await (const chunk of request) chunks.push(chunk as Buffer);
    const token = new URLSearchParams(Buffer.concat(chunks).toString('utf8')).get('logout_token') ?? '';
    response.writeHead(200, { 'Cache-Control': 'no-store' }).end();
    received({ contentType: request.headers['content-type'] ?? '', token });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    uri: `http://127.0.0.1:${(server.address() as AddressInfo).port}/backchannel-logout`,
    next,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** The first form of a page: its action and fields. */
function pageForm(html: string): { action: string; fields: Record<string, string> } {
  const form = /<form\b[^>]*\bmethod="post"[^>]*\baction="([^"]*)"[^>]*>([\s\S]*?)<\/form>/i.exec(html);
  if (!form) throw new Error(`no form in the page:\n${html.slice(0, 500)}`);
  const fields: Record<string, string> = {};
  for (const input of form[2]!.matchAll(/<input\b[^>]*>/gi)) {
    const name = /\bname="([^"]*)"/i.exec(input[0])?.[1];
    const value = /\bvalue="([^"]*)"/i.exec(input[0])?.[1] ?? '';
    if (name !== undefined) fields[name] = value.replace(/&amp;/g, '&');
  }
  return { action: form[1]!.replace(/&amp;/g, '&'), fields };
}

const decode = (part: string) => JSON.parse(Buffer.from(part, 'base64url').toString('utf8'));

/**
 * Back-Channel Logout 1.0 §2.6: the signature by a key of the published JWKS with the ID tokens'
 * algorithm, `typ`, `iss`, `aud`, `iat`, `exp`, `sub` and/or `sid`, the event, no `nonce`.
 * Returns the claims; throws what failed.
 */
async function validateLogoutToken(
  token: string,
  expected: { readonly issuer: string; readonly clientId: string; readonly jwksUri: string },
): Promise<Record<string, unknown>> {
  const [header, payload, signature] = token.split('.');
  if (signature === undefined) throw new Error('not a compact JWS');
  const protectedHeader = decode(header!) as { alg: string; kid: string; typ?: string };
  if (protectedHeader.typ !== 'logout+jwt') throw new Error(`typ ${protectedHeader.typ}`);
  const jwks = (await (await fetch(expected.jwksUri)).json()) as { keys: (JsonWebKey & { kid: string })[] };
  const jwk = jwks.keys.find((key) => key.kid === protectedHeader.kid);
  if (!jwk) throw new Error(`no published key ${protectedHeader.kid}`);
  const key = createPublicKey({ key: jwk, format: 'jwk' });
  const input = Buffer.from(`${header}.${payload}`);
  const bytes = Buffer.from(signature, 'base64url');
  const valid =
    protectedHeader.alg === 'RS256'
      ? verify('sha256', input, key, bytes)
      : protectedHeader.alg === 'ES256'
        ? verify('sha256', input, { key, dsaEncoding: 'ieee-p1363' }, bytes)
        : protectedHeader.alg === 'EdDSA' && verify(null, input, key, bytes);
  if (!valid) throw new Error(`the ${protectedHeader.alg} signature does not verify`);
  const claims = decode(payload!) as Record<string, unknown>;
  const now = Math.floor(Date.now() / 1000);
  if (claims.iss !== expected.issuer) throw new Error(`iss ${claims.iss}`);
  if (![claims.aud].flat().includes(expected.clientId)) throw new Error(`aud ${claims.aud}`);
  if (typeof claims.iat !== 'number' || claims.iat > now + 60) throw new Error(`iat ${claims.iat}`);
  if (typeof claims.exp !== 'number' || claims.exp < now - 60) throw new Error(`exp ${claims.exp}`);
  if (claims.sub === undefined && claims.sid === undefined) throw new Error('neither sub nor sid');
  const event = (claims.events as Record<string, unknown> | undefined)?.[EVENT];
  if (typeof event !== 'object' || event === null) throw new Error('no back-channel logout event');
  if ('nonce' in claims) throw new Error('a nonce');
  if (typeof claims.jti !== 'string') throw new Error('no jti');
  return claims;
}

/** Registers the back-channel logout flow against the instance of `issuer()`. */
export function backchannelLogoutFlows(issuer: () => string, userId: string): void {
  it('sends a registered relying party a valid logout token when the user signs out (Back-Channel Logout 1.0)', async () => {
    const at = (path: string) => issuer() + path;
    const origin = new URL(issuer()).origin;
    const redirectUri = `${origin}/callback`;
    const endpoint = await logoutEndpoint();
    try {
      const discovery = await (await fetch(at('/.well-known/openid-configuration'))).json();
      expect(discovery).toMatchObject({
        backchannel_logout_supported: true,
        backchannel_logout_session_supported: true,
      });
      const registration = await fetch(at('/oauth2/v1/register'), {
        method: 'POST',
        headers: { 'Content-Type': 'application/json' },
        body: JSON.stringify({
          client_name: 'Back-channel relying party',
          redirect_uris: [redirectUri],
          backchannel_logout_uri: endpoint.uri,
          backchannel_logout_session_required: true,
        }),
      });
      expect(registration.status).toBe(201);
      const client = (await registration.json()) as { client_id: string; backchannel_logout_uri: string };
      expect(client.backchannel_logout_uri).toBe(endpoint.uri);

      // Sign in (login page, then the consent page of a self-registered client), with PKCE.
      const browser = new CookieClient();
      const verifier = 'dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk';
      const authorize = `${at('/oauth2/v1/authorize')}?${new URLSearchParams({
        response_type: 'code',
        client_id: client.client_id,
        redirect_uri: redirectUri,
        scope: 'openid',
        state: 'bcl',
        code_challenge: 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM',
        code_challenge_method: 'S256',
      })}`;
      const atCallback = (url: URL) => url.origin + url.pathname === redirectUri;
      let { url, response } = await navigateSigningIn(
        browser,
        authorize,
        { username: DEMO.user.username, password: DEMO.user.password },
        atCallback,
      );
      if (!atCallback(url)) {
        // The consent page: allow, then follow the redirects to the client.
        const consent = pageForm(await response!.text());
        const decided = await browser.fetch(new URL(consent.action, url).href, {
          method: 'POST',
          headers: {
            'Content-Type': FORM,
            Origin: origin,
            'Sec-Fetch-Site': 'same-origin',
            Accept: 'text/html',
          },
          body: new URLSearchParams({ ...consent.fields, decision: 'allow' }),
        });
        expect(decided.status).toBe(303);
        url = new URL(decided.headers.get('location')!, url);
        for (let hop = 0; !atCallback(url) && hop < 5; hop++) {
          const next = await browser.fetch(url.href, {
            headers: { ...NAVIGATION, 'Sec-Fetch-Site': 'same-origin' },
          });
          url = new URL(next.headers.get('location')!, url);
        }
      }
      const code = url.searchParams.get('code');
      expect(code).toMatch(/^[A-Za-z0-9_-]{43}$/);
      const tokens = await fetch(at('/oauth2/v1/token'), {
        method: 'POST',
        headers: { 'Content-Type': FORM },
        body: new URLSearchParams({
          grant_type: 'authorization_code',
          code: code!,
          client_id: client.client_id,
          redirect_uri: redirectUri,
          code_verifier: verifier,
        }),
      });
      expect(tokens.status).toBe(200);
      const idToken = decode(((await tokens.json()) as { id_token: string }).id_token.split('.')[1]!);
      expect(typeof idToken.sid).toBe('string');

      // The user signs out on the logout page (a same-origin script's POST): 204 at once.
      const signedOut = await browser.fetch(at('/logout'), {
        method: 'POST',
        headers: { Origin: origin, 'Sec-Fetch-Site': 'same-origin' },
      });
      expect(signedOut.status).toBe(204);
      const received = await endpoint.next;
      expect(received.contentType).toBe(FORM);
      const claims = await validateLogoutToken(received.token, {
        issuer: issuer(),
        clientId: client.client_id,
        jwksUri: discovery.jwks_uri,
      });
      expect(claims).toMatchObject({ sub: userId, sid: idToken.sid });
    } finally {
      await endpoint.close();
    }
  });
}
