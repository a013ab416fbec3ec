/**
 * Conformance flows of rich authorization requests (RFC 9396), over real HTTP against one
 * instance, with oauth4webapi as the client and raw requests for what a client library never sends
 * (broken details). The demo's
 * `ticket_access` type (actions `read`, `write`) is enforced by its tickets API. Registered by the
 * flows of `flows.ts`, inside their describe block.
 */
import { DEMO } from '@gatehousejs/demo';
import * as oauth from 'oauth4webapi';
import { expect, it } from 'vitest';
import { NAVIGATION, navigateSigningIn } from './code-flow.js';
import { CookieClient } from './harness.js';
import type { InstanceClient } from './instance-client.js';

const READ = [{ type: 'ticket_access', actions: ['read'] }];
const READ_WRITE = [{ type: 'ticket_access', actions: ['read', 'write'] }];
const options = { [oauth.allowInsecureRequests]: true } as const;
const credentials = { username: DEMO.user.username, password: DEMO.user.password };

/** Registers the RAR flows against the instance of `client()`. */
export function richAndSignedRequestFlows(client: () => InstanceClient): void {
  const discover = async (c: InstanceClient) => {
    const issuer = new URL(c.issuer);
    return oauth.processDiscoveryResponse(
      issuer,
      await oauth.discoveryRequest(issuer, { ...options, algorithm: 'oauth2' }),
    );
  };

  /** authorize (with `extra`) → login → callback → code exchange, as demo-client, by oauth4webapi. */
  async function detailedTokens(c: InstanceClient, as: oauth.AuthorizationServer, details: unknown) {
    const verifier = oauth.generateRandomCodeVerifier();
    const state = oauth.generateRandomState();
    const url = `${c.at('/oauth2/v1/authorize')}?${new URLSearchParams({
      response_type: 'code',
      client_id: DEMO.client.id,
      redirect_uri: c.redirectUri,
      scope: 'openid tickets:read offline_access',
      state,
      code_challenge: await oauth.calculatePKCECodeChallenge(verifier),
      code_challenge_method: 'S256',
      authorization_details: JSON.stringify(details),
    })}`;
    const { url: callback } = await navigateSigningIn(new CookieClient(), url, credentials, (at) =>
      at.href.startsWith(c.redirectUri),
    );
    const client: oauth.Client = { client_id: DEMO.client.id };
    const auth = oauth.ClientSecretBasic(DEMO.client.secret);
    const params = oauth.validateAuthResponse(as, client, callback, state);
    const tokens = await oauth.processAuthorizationCodeResponse(
      as,
      client,
      await oauth.authorizationCodeGrantRequest(as, client, auth, params, c.redirectUri, verifier, options),
    );
    return { tokens, client, auth };
  }

  const createTicket = (c: InstanceClient, token: string) =>
    fetch(c.at('/api/v1/tickets/create'), {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', Authorization: `Bearer ${token}` },
      body: JSON.stringify({ title: 'Conformance ticket' }),
    });

  it('RAR: lists authorization_details_types_supported and grants ticket_access details to a real client', async () => {
    const c = client();
    const as = await discover(c);
    expect(as.authorization_details_types_supported).toEqual(['ticket_access']);
    const { tokens, client: rp, auth } = await detailedTokens(c, as, READ);
    expect(tokens.authorization_details).toEqual(READ);
    const introspection = await oauth.processIntrospectionResponse(
      as,
      rp,
      await oauth.introspectionRequest(as, rp, auth, tokens.access_token, options),
    );
    expect(introspection.authorization_details).toEqual(READ);
    // The tickets API enforces the details: a read-only token lists tickets and cannot open one.
    expect((await c.tickets({ Authorization: `Bearer ${tokens.access_token}` })).status).toBe(200);
    const refused = await createTicket(c, tokens.access_token);
    expect(refused.status).toBe(403);
    expect(((await refused.json()) as { error: string }).error).toBe('insufficient_scope');
    // A refresh may not widen the grant's details (RFC 9396 §6.1).
    const widened = await oauth.refreshTokenGrantRequest(as, rp, auth, tokens.refresh_token!, {
      ...options,
      additionalParameters: { authorization_details: JSON.stringify(READ_WRITE) },
    });
    expect(widened.status).toBe(400);
    expect(((await widened.json()) as { error: string }).error).toBe('invalid_authorization_details');
  });

  it('RAR: a read and write grant opens tickets, and a refresh narrowed to read no longer can', async () => {
    const c = client();
    const as = await discover(c);
    const { tokens, client: rp, auth } = await detailedTokens(c, as, READ_WRITE);
    expect(tokens.authorization_details).toEqual(READ_WRITE);
    const created = await createTicket(c, tokens.access_token);
    expect(created.status).toBe(201);
    expect(((await created.json()) as { ticket: { status: string } }).ticket.status).toBe('open');
    const narrowed = await oauth.processRefreshTokenResponse(
      as,
      rp,
      await oauth.refreshTokenGrantRequest(as, rp, auth, tokens.refresh_token!, {
        ...options,
        additionalParameters: { authorization_details: JSON.stringify(READ) },
      }),
    );
    expect(narrowed.authorization_details).toEqual(READ);
    expect((await createTicket(c, narrowed.access_token)).status).toBe(403);
    expect((await c.tickets({ Authorization: `Bearer ${narrowed.access_token}` })).status).toBe(200);
  });

  it('RAR: refuses invalid details with invalid_authorization_details on the redirect', async () => {
    const c = client();
    for (const details of [
      '[{"type":"ticket_access","actions":["delete"]}]',
      '[{"type":"payment_initiation"}]',
      'not json',
    ]) {
      const response = await fetch(
        `${c.at('/oauth2/v1/authorize')}?${new URLSearchParams({
          response_type: 'code',
          client_id: DEMO.client.id,
          redirect_uri: c.redirectUri,
          state: 'rar',
          authorization_details: details,
        })}`,
        { redirect: 'manual', headers: NAVIGATION },
      );
      const location = new URL(response.headers.get('location')!);
      expect([details, location.searchParams.get('error')]).toEqual([
        details,
        'invalid_authorization_details',
      ]);
      expect(location.searchParams.get('state')).toBe('rar');
    }
  });
}
