/**
 * Conformance flows of backchannel authentication (OpenID CIBA Core 1.0, poll mode) against the
 * demo's client `demo-ciba` (the same on every demo instance), over HTTP with a
 * {@link CookieClient} as the person's browser: the backchannel authentication request
 * (`login_hint=demo`, a binding message), a poll too early (`slow_down`), the approval page's
 * documented contract (sign-in, the request with its binding message, Allow / Deny), then the
 * tokens with an ID token, once, with the `authorization_details` the user saw; and a denial
 * (`access_denied`). Registered by the flows of
 * `flows.ts`, inside their describe block.
 */
import { DEMO } from '@gatehousejs/demo';
import { expect, it } from 'vitest';
import { findLoginForm, navigate } from './code-flow.js';
import { CookieClient } from './harness.js';

const FORM = 'application/x-www-form-urlencoded';
const CIBA = 'urn:openid:params:grant-type:ciba';
const CLIENT_AUTH = `Basic ${btoa(`${DEMO.cibaClient.id}:${DEMO.cibaClient.secret}`)}`;

/** The CIBA flows at the instance of `issuer()`, whose demo user has the id `userId`. */
export function cibaFlows(issuer: () => string, userId: string): void {
  const at = (path: string) => issuer() + path;

  const ask = async (bindingMessage: string, extra: Record<string, string> = {}): Promise<string> => {
    const response = await fetch(at('/oauth2/v1/backchannel_authentication'), {
      method: 'POST',
      headers: { 'Content-Type': FORM, Authorization: CLIENT_AUTH },
      body: new URLSearchParams({
        scope: DEMO.cibaClient.scope,
        login_hint: DEMO.user.username,
        binding_message: bindingMessage,
        ...extra,
      }),
    });
    expect(response.status).toBe(200);
    expect(response.headers.get('cache-control')).toContain('no-store');
    const answer = (await response.json()) as { auth_req_id: string; expires_in: number; interval: number };
    expect(answer.auth_req_id.length).toBeGreaterThanOrEqual(22);
    expect(answer.expires_in).toBeGreaterThan(0);
    expect(answer.interval).toBeGreaterThan(0);
    return answer.auth_req_id;
  };

  const poll = (authReqId: string) =>
    fetch(at('/oauth2/v1/token'), {
      method: 'POST',
      headers: { 'Content-Type': FORM, Authorization: CLIENT_AUTH },
      body: new URLSearchParams({ grant_type: CIBA, auth_req_id: authReqId }),
    });

  /** Signs in on the approval page and decides the request showing `bindingMessage`. */
  const decideOnPage = async (bindingMessage: string, decision: 'allow' | 'deny', shows?: string) => {
    const origin = new URL(issuer()).origin;
    const browser = new CookieClient();
    const post = (action: string, fields: Record<string, string>) =>
      browser.fetch(new URL(action, origin).href, {
        method: 'POST',
        headers: { 'Content-Type': FORM, Origin: origin, 'Sec-Fetch-Site': 'same-origin' },
        body: new URLSearchParams(fields),
      });
    // No session: the page leads (303) to the login page of a sign-in interaction.
    const { response: loginPage } = await navigate(browser, at('/approvals'));
    const login = findLoginForm(await loginPage.text());
    expect(login).toBeDefined();
    const signedIn = await post(login!.action, {
      ...login!.fields,
      username: DEMO.user.username,
      password: DEMO.user.password,
    });
    expect(signedIn.status).toBe(303);
    const { url, response: page } = await navigate(
      browser,
      new URL(login!.action, origin).href,
      undefined,
      signedIn,
    );
    expect(url.href).toBe(at('/approvals'));
    const html = await page.text();
    // One section per request; this one is found by its binding message.
    const section = [...html.matchAll(/<section class="request"[\s\S]*?<\/section>/g)]
      .map((match) => match[0])
      .find((text) => text.includes(`<strong class="binding-message">${bindingMessage}</strong>`));
    expect(section).toBeDefined();
    if (shows !== undefined) expect(section).toContain(shows);
    expect(section).toMatch(/<button\b[^>]*\bvalue="allow"[^>]*>Allow<\/button>/);
    expect(section).toMatch(/<button\b[^>]*\bvalue="deny"[^>]*>Deny<\/button>/);
    const action = /<form\b[^>]*\baction="([^"]*)"/.exec(section!)![1]!;
    const fields = Object.fromEntries(
      [...section!.matchAll(/<input type="hidden" name="([^"]*)" value="([^"]*)">/g)].map((m) => [
        m[1]!,
        m[2]!,
      ]),
    );
    const done = await post(action, { ...fields, decision });
    expect(done.status).toBe(200);
    expect(await done.text()).not.toContain(`<strong class="binding-message">${bindingMessage}</strong>`);
  };

  it('runs backchannel authentication (CIBA, poll mode): slow_down, the approval page, tokens once', async () => {
    const message = `Allow ${crypto.randomUUID().slice(0, 8)}`;
    // With what exactly is approved (RFC 9396): the demo's `ticket_access` type, in its own words.
    const details = [{ type: 'ticket_access', actions: ['read'] }];
    const authReqId = await ask(message, { authorization_details: JSON.stringify(details) });
    const early = await poll(authReqId);
    expect(early.status).toBe(400);
    expect((await early.json()).error).toBe('slow_down');
    await decideOnPage(message, 'allow', '<li>Read your support tickets</li>');
    const tokens = await poll(authReqId);
    expect(tokens.status).toBe(200);
    const set = (await tokens.json()) as Record<string, string>;
    expect(set.scope).toBe(DEMO.cibaClient.scope);
    expect(set.authorization_details).toEqual(details);
    const idToken = JSON.parse(Buffer.from(set.id_token!.split('.')[1]!, 'base64url').toString());
    expect(idToken).toMatchObject({ iss: issuer(), sub: userId });
    expect([idToken.aud].flat()).toContain(DEMO.cibaClient.id);
    expect((await (await poll(authReqId)).json()).error).toBe('invalid_grant');
  });

  it('answers access_denied once the user denies a backchannel authentication on the approval page', async () => {
    const message = `Deny ${crypto.randomUUID().slice(0, 8)}`;
    const authReqId = await ask(message);
    await decideOnPage(message, 'deny');
    const denied = await poll(authReqId);
    expect(denied.status).toBe(400);
    expect((await denied.json()).error).toBe('access_denied');
  });
}
