/**
 * Conformance flow of the device authorization grant (RFC 8628) against the demo's public client
 * `demo-cli` (the same on every demo instance), over HTTP with a {@link CookieClient} as the
 * person's browser: the device authorization, a poll too early (`slow_down`), the verification
 * page's documented contract (the `user_code` form, the login page, the confirmation with Allow /
 * Deny, a result page without a form), then the tokens, once. Registered by the flows of
 * `flows.ts`, inside their describe block.
 */
import { DEMO } from '@gatehousejs/demo';
import { expect, it } from 'vitest';
import { findLoginForm, navigate } from './code-flow.js';
import { CookieClient } from './harness.js';

const FORM = 'application/x-www-form-urlencoded';
const DEVICE_CODE = 'urn:ietf:params:oauth:grant-type:device_code';
const NAVIGATION = { Accept: 'text/html', 'Sec-Fetch-Site': 'none', 'Sec-Fetch-Mode': 'navigate' };

const decodeEntities = (text: string) =>
  text.replace(
    /&(amp|lt|gt|quot|#39|#96);/g,
    (_, entity: string) => ({ amp: '&', lt: '<', gt: '>', quot: '"', '#39': "'", '#96': '`' })[entity]!,
  );

/** A page's first POST form: its action and every named input's value (hidden or not). */
function pageForm(html: string): { action: string; fields: Record<string, string> } {
  const form = /<form\b[^>]*\bmethod="post"[^>]*\baction="([^"]*)"[^>]*>([\s\S]*?)<\/form>/i.exec(html);
  if (!form) throw new Error(`no form in the page:\n${html.slice(0, 500)}`);
  const fields: Record<string, string> = {};
  for (const input of form[2]!.matchAll(/<input\b[^>]*>/gi)) {
    const name = /\bname="([^"]*)"/i.exec(input[0])?.[1];
    const value = /\bvalue="([^"]*)"/i.exec(input[0])?.[1] ?? '';
    if (name !== undefined) fields[decodeEntities(name)] = decodeEntities(value);
  }
  return { action: decodeEntities(form[1]!), fields };
}

/** The device grant flows at the instance of `issuer()`, whose demo user has the id `userId`. */
export function deviceFlows(issuer: () => string, userId: string): void {
  it('runs the device authorization grant: slow_down, the verification page, tokens once', async () => {
    const at = (path: string) => issuer() + path;
    const origin = new URL(issuer()).origin;
    const started = await fetch(at('/oauth2/v1/device_authorization'), {
      method: 'POST',
      headers: { 'Content-Type': FORM },
      body: new URLSearchParams({ client_id: DEMO.cliClient.id, scope: DEMO.cliClient.scope }),
    });
    expect(started.status).toBe(200);
    const device = (await started.json()) as Record<string, string | number>;
    expect(device.user_code).toMatch(/^[BCDFGHJKLMNPQRSTVWXZ]{4}-[BCDFGHJKLMNPQRSTVWXZ]{4}$/);
    expect(device.verification_uri).toBe(at('/device'));
    const poll = () =>
      fetch(at('/oauth2/v1/token'), {
        method: 'POST',
        headers: { 'Content-Type': FORM },
        body: new URLSearchParams({
          grant_type: DEVICE_CODE,
          device_code: String(device.device_code),
          client_id: DEMO.cliClient.id,
        }),
      });
    const early = await poll();
    expect(early.status).toBe(400);
    expect((await early.json()).error).toBe('slow_down');

    // The person's browser, by the page's documented contract.
    const browser = new CookieClient();
    const post = (action: string, fields: Record<string, string>) =>
      browser.fetch(new URL(action, origin).href, {
        method: 'POST',
        headers: { 'Content-Type': FORM, Origin: origin, 'Sec-Fetch-Site': 'same-origin' },
        body: new URLSearchParams(fields),
      });
    const codePage = await browser.fetch(String(device.verification_uri_complete), { headers: NAVIGATION });
    expect(codePage.status).toBe(200);
    const codeForm = pageForm(await codePage.text());
    expect(codeForm.fields.user_code).toBe(device.user_code);
    // No session: the code leads (303) to the login page of a sign-in interaction.
    const entered = await post(codeForm.action, codeForm.fields);
    const { response: loginPage } = await navigate(
      browser,
      new URL(codeForm.action, origin).href,
      undefined,
      entered,
    );
    const login = findLoginForm(await loginPage.text());
    expect(login).toBeDefined();
    const signedIn = await post(login!.action, {
      ...login!.fields,
      username: DEMO.user.username,
      password: DEMO.user.password,
    });
    expect(signedIn.status).toBe(303);
    // The resume starts the session and goes on to the confirmation.
    const { response: confirmPage } = await navigate(
      browser,
      new URL(login!.action, origin).href,
      undefined,
      signedIn,
    );
    const confirmHtml = await confirmPage.text();
    expect(confirmHtml).toContain(String(device.user_code));
    expect(confirmHtml).toMatch(/<button\b[^>]*\bvalue="allow"[^>]*>Allow/);
    expect(confirmHtml).toMatch(/<button\b[^>]*\bvalue="deny"[^>]*>Deny/);
    const done = await post(pageForm(confirmHtml).action, {
      ...pageForm(confirmHtml).fields,
      decision: 'allow',
    });
    expect(done.status).toBe(200);
    expect(await done.text()).not.toMatch(/<form\b/i);

    const tokens = await poll();
    expect(tokens.status).toBe(200);
    const set = (await tokens.json()) as Record<string, string>;
    expect(set.refresh_token).toBeTruthy();
    const idToken = JSON.parse(Buffer.from(set.id_token!.split('.')[1]!, 'base64url').toString());
    expect(idToken.sub).toBe(userId);
    expect([idToken.aud].flat()).toContain(DEMO.cliClient.id);
    const again = await poll();
    expect((await again.json()).error).toBe('invalid_grant');
  });
}
