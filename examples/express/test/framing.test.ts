/**
 * The demo app's own pages (`/`, `/callback`, the other files of public/) refuse to be framed by
 * another site, through response headers (a `<meta>` CSP cannot carry `frame-ancestors`), like
 * Gatehouse's own pages do. Over HTTP against the example server as `pnpm start` runs it.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type DemoServer, startDemoServer } from './support/demo-server';

describe('framing of the demo app', () => {
  let server: DemoServer;

  beforeAll(async () => {
    server = await startDemoServer();
  }, 30_000);

  afterAll(async () => {
    await server?.stop();
  });

  it('refuses every framing site on /, /callback and the other static files', async () => {
    for (const path of ['/', '/callback?code=x&state=y', '/index.html', '/app.css']) {
      const response = await fetch(server.origin + path);
      expect(response.status, path).toBe(200);
      expect(response.headers.get('x-frame-options'), path).toBe('DENY');
      expect(response.headers.get('content-security-policy'), path).toBe("frame-ancestors 'none'");
    }
  });

  it('leaves the headers of Gatehouse pages as the core sets them', async () => {
    const start = await fetch(
      `${server.issuer}/oauth2/v1/authorize?${new URLSearchParams({
        response_type: 'code',
        client_id: 'demo-client',
        redirect_uri: `${server.origin}/callback`,
        state: 's',
        code_challenge: 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM',
        code_challenge_method: 'S256',
      })}`,
      { headers: { Accept: 'text/html' }, redirect: 'manual' },
    );
    // To the login page of the sign-in interaction, with the cookie that binds it to this browser.
    const binding = start.headers.getSetCookie().map((header) => header.split(';')[0]!);
    const login = await fetch(start.headers.get('location')!, {
      headers: { Accept: 'text/html', Cookie: binding.join('; ') },
    });
    expect(login.status).toBe(200);
    expect(login.headers.get('x-frame-options')).toBe('DENY');
    // One policy, the core's: default-src 'none' and frame-ancestors 'none' among others.
    expect(login.headers.get('content-security-policy')).toMatch(
      /^default-src 'none';.*frame-ancestors 'none'/,
    );
  });
});
