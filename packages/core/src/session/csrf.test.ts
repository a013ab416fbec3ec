import { describe, expect, it } from 'vitest';
import { testInstance } from '../../test/fixtures';

/** A login form post as a browser would send it from `pageOrigin` (the page's own address). */
function loginPost(pageOrigin: string, origin = pageOrigin): Request {
  return new Request(`${pageOrigin}/demo/login`, {
    method: 'POST',
    headers: {
      'Content-Type': 'application/x-www-form-urlencoded',
      Origin: origin,
      'Sec-Fetch-Site': 'same-origin',
    },
    body: 'username=demo&password=demo-password',
  });
}

describe('a form posted from the right server under another name', () => {
  it('is refused with a message naming the issuer origin to open, and one logged warning', async () => {
    const warnings: string[] = [];
    const t = await testInstance({ logger: { warn: (message) => warnings.push(message), error() {} } });
    for (let i = 0; i < 2; i++) {
      const response = await t.gatehouse.fetch(loginPost('http://127.0.0.1:3000'));
      expect(response.status).toBe(403);
      expect(await response.text()).toContain(
        'This page was opened at http://127.0.0.1:3000, but this server&#39;s address is http://localhost:3000.',
      );
    }
    // One for the form, plus the instance's own one for a request at another origin (http/deployment-warnings.ts).
    const formWarnings = warnings.filter((warning) => warning.includes('a form was posted'));
    expect(formWarnings).toHaveLength(1);
    expect(formWarnings[0]).toContain("the issuer's origin is http://localhost:3000");
    expect(warnings).toHaveLength(2);
  });

  it('keeps the plain cross-site answer, without a warning, for a genuinely foreign page', async () => {
    const warnings: string[] = [];
    const t = await testInstance({ logger: { warn: (message) => warnings.push(message), error() {} } });
    const response = await t.gatehouse.fetch(loginPost('http://localhost:3000', 'https://evil.example'));
    expect(response.status).toBe(403);
    expect(await response.text()).toContain('Cross-site requests to this form are refused.');
    expect(warnings).toEqual([]);
  });
});
