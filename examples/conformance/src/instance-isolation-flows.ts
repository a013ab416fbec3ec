/**
 * Issue 18 over HTTP: the two demo instances of one host (`demo`, `acme`) share client ids,
 * secrets, the redirect URI, the username and the password, so only the instance boundary can
 * refuse what one issued at the other. Registered once per target by `flows.ts` (not per instance).
 */
import { expect, it } from 'vitest';
import { instanceClient, SESSION_COOKIE } from './instance-client.js';

/** Registers the checks that nothing `demo` issued works at `acme`, on the server at `origin()`. */
export function instanceIsolationFlows(origin: () => string): void {
  it('refuses a demo access token at acme’s userinfo and tickets API (401 invalid_token), and its session cookie', async () => {
    const demo = instanceClient(origin(), 'demo');
    const acme = instanceClient(origin(), 'acme');
    const { browser, tokens } = await demo.signedInTokens();
    const bearer = { Authorization: `Bearer ${tokens.access_token}` };
    // RFC 6750 §3.1: a token the resource server does not accept is invalid_token, in the challenge.
    for (const response of [
      await fetch(acme.at('/oauth2/v1/userinfo'), { headers: bearer }),
      await acme.tickets(bearer),
    ]) {
      expect(response.status).toBe(401);
      expect(response.headers.get('www-authenticate')).toMatch(/^Bearer .*error="invalid_token"/);
    }
    const bySession = await fetch(acme.at('/oauth2/v1/userinfo'), {
      headers: {
        Accept: 'application/json',
        Cookie: browser.only(SESSION_COOKIE),
        'Sec-Fetch-Site': 'same-origin',
      },
    });
    expect(bySession.status).toBe(401);
    // The same token still works where it was issued.
    expect((await demo.tickets(bearer)).status).toBe(200);
  });

  it('refuses a demo code and refresh token at acme (invalid_grant), which still work at demo', async () => {
    const demo = instanceClient(origin(), 'demo');
    const acme = instanceClient(origin(), 'acme');
    const { callback, verifier } = await demo.signIn();
    // Same client, secret, redirect URI and verifier: only the instance differs (RFC 6749 §5.2).
    const redeem = {
      grant_type: 'authorization_code',
      code: callback.get('code')!,
      redirect_uri: acme.redirectUri,
      code_verifier: verifier,
    };
    const crossCode = await acme.tokenRequest(redeem);
    expect(crossCode.status).toBe(400);
    expect((await crossCode.json()).error).toBe('invalid_grant');
    const tokens = await demo.exchange(redeem.code, verifier);

    const refresh = { grant_type: 'refresh_token', refresh_token: tokens.refresh_token };
    const crossRefresh = await acme.tokenRequest(refresh);
    expect(crossRefresh.status).toBe(400);
    expect((await crossRefresh.json()).error).toBe('invalid_grant');
    expect((await demo.tokenRequest(refresh)).status).toBe(200);
  });
}
