/**
 * Agents acting for users, over HTTP against `pnpm start` (the Express example server as a child
 * process), with oauth4webapi and the MCP SDK client:
 *
 * - RFC 8693 token exchange with the exact demo seed: `demo-agent` / `demo-agent-secret` trades a
 *   `demo` user's access token for one whose audience is the MCP server, carrying
 *   `act.sub = "demo-agent"`; the MCP server accepts it; a delegation chain (the agent's own client
 *   credentials token as the `actor_token`); refused widening (scope, audience) and a refused
 *   actor;
 * - the enterprise-managed authorization profile (ID-JAG) across the host's two instances: the
 *   user signs in at `acme` (the identity provider) with `demo-enterprise`, which exchanges the ID
 *   token there for an ID-JAG for `demo`, redeems it at `demo` with the JWT bearer grant (RFC 7523
 *   §2.1), and calls the MCP tool with the access token; a replayed ID-JAG is refused.
 */
import { DEMO } from '@gatehousejs/demo';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import * as oauth from 'oauth4webapi';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { navigateSigningIn } from '../../conformance/src/code-flow';
import { CookieClient } from '../../conformance/src/harness';
import { type DemoServer, startDemoServer } from './support/demo-server';

const insecure = { [oauth.allowInsecureRequests]: true } as const;
const EXCHANGE = 'urn:ietf:params:oauth:grant-type:token-exchange';
const JWT_BEARER = 'urn:ietf:params:oauth:grant-type:jwt-bearer';
const ACCESS = 'urn:ietf:params:oauth:token-type:access_token';
const ID_TOKEN = 'urn:ietf:params:oauth:token-type:id_token';
const ID_JAG = 'urn:ietf:params:oauth:token-type:id-jag';
const USER = { username: DEMO.user.username, password: DEMO.user.password };

const decodeJwt = (jwt: string): Record<string, unknown> =>
  JSON.parse(Buffer.from(jwt.split('.')[1]!, 'base64url').toString('utf8'));
const decodeHeader = (jwt: string): Record<string, unknown> =>
  JSON.parse(Buffer.from(jwt.split('.')[0]!, 'base64url').toString('utf8'));

let server: DemoServer;
let mcpUrl: string;

beforeAll(async () => {
  server = await startDemoServer();
  mcpUrl = server.origin + DEMO.mcp.path;
}, 30_000);

afterAll(async () => {
  await server?.stop();
});

/** The authorization server metadata of an instance (`demo` or `acme`), by RFC 8414 discovery. */
async function discover(
  instance: 'demo' | 'acme',
  algorithm: 'oauth2' | 'oidc' = 'oauth2',
): Promise<oauth.AuthorizationServer> {
  const issuer = new URL(`${server.origin}/${instance}`);
  return oauth.processDiscoveryResponse(
    issuer,
    await oauth.discoveryRequest(issuer, { ...insecure, algorithm }),
  );
}

/** The code flow of a confidential client, the user signing in through the login page. */
async function signIn(
  as: oauth.AuthorizationServer,
  clientId: string,
  secret: string,
  scope: string,
): Promise<oauth.TokenEndpointResponse> {
  // `acme` holds an ES256 key only, and signs ID tokens with it (discovery says so).
  const algorithms = as.id_token_signing_alg_values_supported ?? [];
  const client: oauth.Client = {
    client_id: clientId,
    ...(algorithms.includes('RS256') ? {} : { id_token_signed_response_alg: algorithms[0] }),
  };
  const verifier = oauth.generateRandomCodeVerifier();
  const state = oauth.generateRandomState();
  const redirectUri = `${server.origin}/callback`;
  const url = new URL(as.authorization_endpoint!);
  url.search = new URLSearchParams({
    response_type: 'code',
    client_id: clientId,
    redirect_uri: redirectUri,
    scope,
    state,
    code_challenge: await oauth.calculatePKCECodeChallenge(verifier),
    code_challenge_method: 'S256',
  }).toString();
  const { url: callback } = await navigateSigningIn(new CookieClient(), url.href, USER, (target) =>
    target.href.startsWith(redirectUri),
  );
  const params = oauth.validateAuthResponse(as, client, callback, state);
  const response = await oauth.authorizationCodeGrantRequest(
    as,
    client,
    oauth.ClientSecretBasic(secret),
    params,
    redirectUri,
    verifier,
    insecure,
  );
  return oauth.processAuthorizationCodeResponse(as, client, response);
}

const agent: oauth.Client = { client_id: DEMO.agentClient.id };
const agentAuth = oauth.ClientSecretBasic(DEMO.agentClient.secret);

/** A token exchange request of demo-agent (the raw response, for the refusals). */
function exchangeRequest(as: oauth.AuthorizationServer, parameters: Record<string, string>) {
  return oauth.genericTokenEndpointRequest(as, agent, agentAuth, EXCHANGE, parameters, insecure);
}

/** Calls the MCP tool with a bearer token through the MCP SDK client; resolves the owners of the tickets listed. */
async function callTool(token: string): Promise<string[]> {
  const client = new Client({ name: 'token-exchange-test', version: '0.0.0' });
  const transport = new StreamableHTTPClientTransport(new URL(mcpUrl), {
    requestInit: { headers: { Authorization: `Bearer ${token}` } },
  });
  await client.connect(transport);
  try {
    const result = await client.callTool({ name: 'list_tickets', arguments: { limit: 1 } });
    expect(result.isError).toBeFalsy();
    const { tickets } = result.structuredContent as { tickets: { ownerSub: string }[] };
    return tickets.map((ticket) => ticket.ownerSub);
  } finally {
    await client.close();
  }
}

/** The error code of a refused token request. */
async function refusal(response: Response): Promise<string> {
  expect(response.status).toBe(400);
  return ((await response.json()) as { error: string }).error;
}

describe('token exchange (RFC 8693) with the demo-agent seed', () => {
  it("exchanges a demo user's token for one for the MCP server, act.sub = demo-agent, which /mcp accepts", async () => {
    const as = await discover('demo');
    expect(as.grant_types_supported).toContain(EXCHANGE);
    const user = await signIn(as, DEMO.client.id, DEMO.client.secret, 'openid tickets:read');
    const response = await exchangeRequest(as, {
      subject_token: user.access_token,
      subject_token_type: ACCESS,
      resource: mcpUrl,
    });
    const exchanged = await oauth.processGenericTokenEndpointResponse(as, agent, response);
    expect(exchanged).toMatchObject({ token_type: 'bearer', scope: 'tickets:read' });
    expect(exchanged.refresh_token).toBeUndefined();
    expect((exchanged as unknown as { issued_token_type: string }).issued_token_type).toBe(ACCESS);
    const claims = decodeJwt(exchanged.access_token);
    expect(claims).toMatchObject({
      iss: as.issuer,
      sub: DEMO.user.id,
      aud: mcpUrl,
      client_id: DEMO.agentClient.id,
      scope: 'tickets:read',
      act: { sub: DEMO.agentClient.id },
    });
    expect(await callTool(exchanged.access_token)).toEqual([DEMO.user.id]);
    // Introspection by the agent shows the delegation.
    const introspection = await oauth.processIntrospectionResponse(
      as,
      agent,
      await oauth.introspectionRequest(as, agent, agentAuth, exchanged.access_token, insecure),
    );
    expect(introspection).toMatchObject({
      active: true,
      sub: DEMO.user.id,
      act: { sub: DEMO.agentClient.id },
    });
  });

  it("takes the agent's own client credentials token as the actor_token, and nests the user's chain", async () => {
    const as = await discover('demo');
    const user = await signIn(as, DEMO.client.id, DEMO.client.secret, 'openid tickets:read');
    const own = await oauth.processClientCredentialsResponse(
      as,
      agent,
      await oauth.clientCredentialsGrantRequest(
        as,
        agent,
        agentAuth,
        { scope: DEMO.agentClient.scope },
        insecure,
      ),
    );
    const first = await oauth.processGenericTokenEndpointResponse(
      as,
      agent,
      await exchangeRequest(as, {
        subject_token: user.access_token,
        subject_token_type: ACCESS,
        actor_token: own.access_token,
        actor_token_type: ACCESS,
        resource: mcpUrl,
      }),
    );
    expect(decodeJwt(first.access_token).act).toEqual({ sub: DEMO.agentClient.id, sub_kind: 'client' });
    // The delegated token exchanged again: the agent acts again, the first delegation nested.
    const second = await oauth.processGenericTokenEndpointResponse(
      as,
      agent,
      await exchangeRequest(as, {
        subject_token: first.access_token,
        subject_token_type: ACCESS,
        resource: mcpUrl,
      }),
    );
    expect(decodeJwt(second.access_token).act).toEqual({
      sub: DEMO.agentClient.id,
      sub_kind: 'client',
      act: { sub: DEMO.agentClient.id, sub_kind: 'client' },
    });
  });

  it('refuses more scope, another audience, another actor, and tokens that are not a user’s', async () => {
    const as = await discover('demo');
    const user = await signIn(as, DEMO.client.id, DEMO.client.secret, 'openid tickets:read');
    const subject = { subject_token: user.access_token, subject_token_type: ACCESS };
    expect(
      await refusal(
        await exchangeRequest(as, { ...subject, resource: mcpUrl, scope: 'tickets:read profile' }),
      ),
    ).toBe('invalid_scope');
    // The instance's own API is no audience the policy allows the agent.
    expect(await refusal(await exchangeRequest(as, { ...subject, resource: `${as.issuer}/api/v1` }))).toBe(
      'invalid_target',
    );
    expect(
      await refusal(await exchangeRequest(as, { ...subject, resource: 'https://elsewhere.example/mcp' })),
    ).toBe('invalid_target');
    // Another client's token as the actor: the policy refuses.
    const service: oauth.Client = { client_id: DEMO.serviceClient.id };
    const serviceToken = await oauth.processClientCredentialsResponse(
      as,
      service,
      await oauth.clientCredentialsGrantRequest(
        as,
        service,
        oauth.ClientSecretBasic(DEMO.serviceClient.secret),
        { scope: DEMO.serviceClient.scope },
        insecure,
      ),
    );
    expect(
      await refusal(
        await exchangeRequest(as, {
          ...subject,
          actor_token: serviceToken.access_token,
          actor_token_type: ACCESS,
          resource: mcpUrl,
        }),
      ),
    ).toBe('unauthorized_client');
    // A client's own token as the subject (no user behind it): refused.
    expect(
      await refusal(
        await exchangeRequest(as, {
          subject_token: serviceToken.access_token,
          subject_token_type: ACCESS,
          resource: mcpUrl,
        }),
      ),
    ).toBe('unauthorized_client');
    // A forged subject token.
    expect(
      await refusal(await exchangeRequest(as, { subject_token: 'e30.e30.', subject_token_type: ACCESS })),
    ).toBe('invalid_request');
  });
});

describe('enterprise-managed authorization (ID-JAG): acme as the identity provider, demo as the MCP authorization server', () => {
  it('signs in at acme, exchanges the ID token for an ID-JAG, redeems it at demo once, and calls the MCP tool', async () => {
    // OpenID Connect discovery: the client signs in there, and reads the ID token algorithms.
    const idp = await discover('acme', 'oidc');
    const mcpAs = await discover('demo');
    const enterprise: oauth.Client = { client_id: DEMO.enterpriseClient.id };
    const auth = oauth.ClientSecretBasic(DEMO.enterpriseClient.secret);
    expect(idp.identity_chaining_requested_token_types_supported).toEqual([ID_JAG]);
    expect(mcpAs.grant_types_supported).toContain(JWT_BEARER);

    // 1. Single sign-on at the identity provider: an ID token issued to the client.
    const sso = await signIn(idp, DEMO.enterpriseClient.id, DEMO.enterpriseClient.secret, 'openid');
    expect(sso.id_token).toBeTruthy();

    // 2. Token exchange at the identity provider: the ID-JAG for the MCP authorization server.
    const jagResponse = await oauth.genericTokenEndpointRequest(
      idp,
      enterprise,
      auth,
      EXCHANGE,
      {
        requested_token_type: ID_JAG,
        audience: mcpAs.issuer,
        resource: mcpUrl,
        scope: DEMO.enterpriseClient.scope,
        subject_token: sso.id_token!,
        subject_token_type: ID_TOKEN,
      },
      insecure,
    );
    const jag = await oauth.processGenericTokenEndpointResponse(idp, enterprise, jagResponse, {
      // draft-ietf-oauth-identity-assertion-authz-grant §4.3.3: not an access token, token_type N_A.
      recognizedTokenTypes: { n_a: () => {} },
    });
    expect(jag).toMatchObject({ token_type: 'n_a', scope: DEMO.enterpriseClient.scope });
    expect((jag as unknown as { issued_token_type: string }).issued_token_type).toBe(ID_JAG);
    expect(decodeHeader(jag.access_token).typ).toBe('oauth-id-jag+jwt');
    expect(decodeJwt(jag.access_token)).toMatchObject({
      iss: idp.issuer,
      sub: 'user-acme',
      aud: mcpAs.issuer,
      client_id: DEMO.enterpriseClient.id,
      resource: mcpUrl,
      scope: DEMO.enterpriseClient.scope,
    });

    // 3. The JWT bearer grant at the MCP server's authorization server.
    const redeem = () =>
      oauth.genericTokenEndpointRequest(
        mcpAs,
        enterprise,
        auth,
        JWT_BEARER,
        { assertion: jag.access_token },
        insecure,
      );
    const tokens = await oauth.processGenericTokenEndpointResponse(mcpAs, enterprise, await redeem());
    expect(decodeJwt(tokens.access_token)).toMatchObject({
      iss: mcpAs.issuer,
      sub: DEMO.user.id,
      aud: mcpUrl,
      client_id: DEMO.enterpriseClient.id,
      scope: DEMO.enterpriseClient.scope,
    });
    // A replayed ID-JAG is refused.
    expect(await refusal(await redeem())).toBe('invalid_grant');

    // 4. The MCP server accepts the token.
    expect(await callTool(tokens.access_token)).toEqual([DEMO.user.id]);

    // And at the identity provider: no ID-JAG for another audience, and none from an access token.
    const refusedJag = (parameters: Record<string, string>) =>
      oauth.genericTokenEndpointRequest(idp, enterprise, auth, EXCHANGE, parameters, insecure);
    expect(
      await refusal(
        await refusedJag({
          requested_token_type: ID_JAG,
          audience: 'https://other-as.example',
          subject_token: sso.id_token!,
          subject_token_type: ID_TOKEN,
        }),
      ),
    ).toBe('invalid_target');
    expect(
      await refusal(
        await refusedJag({
          requested_token_type: ID_JAG,
          audience: mcpAs.issuer,
          subject_token: sso.access_token,
          subject_token_type: ACCESS,
        }),
      ),
    ).toBe('invalid_request');
  });
});
