import { describe, expect, it } from 'vitest';
import { defaultEndSessionPage } from './end-session-page';

const hostile = `"><script>alert(1)</script>`;

describe('the end-session page', () => {
  it('asks to confirm with the CSRF token and the carried request, escaping every value', () => {
    const html = defaultEndSessionPage({
      action: '/demo/oauth2/v1/end-session',
      csrfToken: 'tok',
      hiddenFields: { state: hostile, client_id: 'rp' },
      state: 'confirm',
      clientName: hostile,
      username: 'demo',
    });
    expect(html).toContain('Sign out?');
    expect(html).toContain('name="csrf_token" value="tok"');
    expect(html).toContain('<button type="submit">Sign out</button>');
    expect(html).toContain('Signed in as demo');
    expect(html).not.toContain('<script>');
  });

  it('says signed out when done', () => {
    const html = defaultEndSessionPage({ action: '', csrfToken: '', hiddenFields: {}, state: 'signed-out' });
    expect(html).toContain('You are signed out');
    expect(html).not.toContain('<form');
  });
});
