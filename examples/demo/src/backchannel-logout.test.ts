/**
 * The demo's back-channel logout (OpenID Connect Back-Channel Logout 1.0): on, with the development
 * setting that lets a client on the same machine register an `http://127.0.0.1:PORT/…` or
 * `http://localhost…` back-channel logout URI by RFC 7591 dynamic registration.
 */
import { createDemo, DEMO_REGISTRATION } from '@gatehousejs/demo';
import { describe, expect, it } from 'vitest';

describe('the demo back-channel logout', () => {
  it('is announced, and registration accepts loopback back-channel logout URIs (a development setting)', async () => {
    expect(DEMO_REGISTRATION.backchannelLogout).toEqual({ allowLoopback: true });
    const demo = await createDemo({ port: 3996, warn: () => {} });
    const discovery = (await (
      await demo.gatehouse.fetch(new Request(`${demo.issuer}/.well-known/openid-configuration`))
    ).json()) as Record<string, unknown>;
    expect(discovery).toMatchObject({
      backchannel_logout_supported: true,
      backchannel_logout_session_supported: true,
    });
    for (const uri of ['http://127.0.0.1:4100/backchannel-logout', 'http://localhost:4100/bcl?app=a']) {
      const response = await demo.gatehouse.fetch(
        new Request(`${demo.issuer}/oauth2/v1/register`, {
          method: 'POST',
          headers: { 'Content-Type': 'application/json' },
          body: JSON.stringify({
            client_name: 'Local app',
            redirect_uris: ['http://localhost:4100/callback'],
            backchannel_logout_uri: uri,
            backchannel_logout_session_required: true,
          }),
        }),
      );
      expect(response.status).toBe(201);
      expect(await response.json()).toMatchObject({
        backchannel_logout_uri: uri,
        backchannel_logout_session_required: true,
      });
    }
    // Only loopback hosts go without https, even in the demo.
    const remote = await demo.gatehouse.fetch(
      new Request(`${demo.issuer}/oauth2/v1/register`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json' },
        body: JSON.stringify({
          redirect_uris: ['http://localhost:4100/callback'],
          backchannel_logout_uri: 'http://rp.example.com/logout',
        }),
      }),
    );
    expect(remote.status).toBe(400);
    expect(await remote.json()).toMatchObject({ error: 'invalid_client_metadata' });
  });
});
