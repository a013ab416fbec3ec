/**
 * Token exchange and the JWT bearer grant over HTTP with oauth4webapi, against an instance of our
 * own (Express, in this process) whose policy has what the demo's does not: a gateway allowed to
 * impersonate, and a partner identity provider trusted for its JWTs, whose keys are served by a
 * loopback HTTP server (fetched through the guarded fetch and cached, `clientJwks.allowLoopback`).
 */
import { createServer, type Server } from 'node:http';
import {
  createGatehouse,
  type Gatehouse,
  generateKeys,
  hashClientSecret,
  memoryClientStore,
  memoryUserStore,
  pbkdf2Hasher,
} from '@gatehousejs/core';
import { gatehouse } from '@gatehousejs/express';
import express from 'express';
import { exportJWK, generateKeyPair, type JWK, SignJWT } from 'jose';
import * as oauth from 'oauth4webapi';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort } from './support/demo-server';

const insecure = { [oauth.allowInsecureRequests]: true } as const;
const EXCHANGE = 'urn:ietf:params:oauth:grant-type:token-exchange';
const JWT_BEARER = 'urn:ietf:params:oauth:grant-type:jwt-bearer';
const ACCESS = 'urn:ietf:params:oauth:token-type:access_token';
const JWT = 'urn:ietf:params:oauth:token-type:jwt';
const PARTNER = 'https://idp.partner.example';

const decodeJwt = (jwt: string): Record<string, unknown> =>
  JSON.parse(Buffer.from(jwt.split('.')[1]!, 'base64url').toString('utf8'));

let app: Server;
let jwks: Server;
let jwksFetches = 0;
let partnerKey: CryptoKey;
let issuer: string;
let api: string;
let reports: string;
let as: oauth.AuthorizationServer;

beforeAll(async () => {
  const pair = await generateKeyPair('ES256', { extractable: true });
  partnerKey = pair.privateKey as CryptoKey;
  const publicJwk: JWK = { ...(await exportJWK(pair.publicKey)), kid: 'partner-1', alg: 'ES256' };
  jwks = createServer((_request, response) => {
    jwksFetches++;
    response.writeHead(200, { 'Content-Type': 'application/jwk-set+json' });
    response.end(JSON.stringify({ keys: [publicJwk] }));
  });
  await new Promise<void>((resolve) => jwks.listen(0, '127.0.0.1', resolve));
  const jwksUri = `http://127.0.0.1:${(jwks.address() as { port: number }).port}/jwks`;

  const port = await freePort();
  issuer = `http://localhost:${port}/as`;
  api = `${issuer}/api/v1`;
  reports = `http://localhost:${port}/reports`;
  const hasher = pbkdf2Hasher({ iterations: 1000 });
  const client = async (id: string, grantTypes: string[]) => ({
    id,
    type: 'confidential' as const,
    secretHash: await hashClientSecret(`${id}-secret`),
    grantTypes,
    redirectUris: [],
  });
  const instance: Gatehouse = createGatehouse({
    issuer,
    keys: [await generateKeys('ES256')],
    clients: memoryClientStore([
      await client('agent', [EXCHANGE, 'client_credentials']),
      await client('gateway', [EXCHANGE]),
      await client('app', [JWT_BEARER]),
    ]),
    users: memoryUserStore(
      [{ id: 'user-1', username: 'alice', passwordHash: await hasher.hash('alice-password') }],
      { hasher },
    ),
    scopes: ['read', 'write'],
    resources: [reports],
    authApi: { scope: 'read write' },
    clientJwks: { allowLoopback: true },
    trustedIssuers: [
      {
        issuer: PARTNER,
        jwksUri,
        jwtBearer: true,
        userId: (claims) => (claims.sub === 'partner-alice' ? 'user-1' : null),
      },
    ],
    tokenExchange: {
      policy: ({ client, subject, actor }) => {
        // The agent acts for users at the reports API, read-only, only as itself.
        if (client.id === 'agent') {
          if (actor && actor.sub !== 'agent') return null;
          return { scope: 'read', audience: [reports] };
        }
        // The gateway may impersonate (no act), and takes the partner's users as ours.
        if (client.id === 'gateway') {
          return {
            scope: 'read write',
            audience: [api, reports],
            impersonation: true,
            ...(subject.local ? {} : { userId: 'user-1' }),
          };
        }
        return null;
      },
    },
    logger: { warn() {}, error() {} },
  });
  await instance.ready();
  const server = express();
  // At the root: the RFC 8414 metadata lives at /.well-known/oauth-authorization-server/as.
  server.use(gatehouse(instance));
  await new Promise<void>((resolve) => {
    app = server.listen(port, '127.0.0.1', () => resolve());
  });
  as = await oauth.processDiscoveryResponse(
    new URL(issuer),
    await oauth.discoveryRequest(new URL(issuer), { ...insecure, algorithm: 'oauth2' }),
  );
}, 30_000);

afterAll(async () => {
  await new Promise((resolve) => app?.close(resolve));
  await new Promise((resolve) => jwks?.close(resolve));
});

const credentials = (id: string) => ({
  client: { client_id: id } as oauth.Client,
  auth: oauth.ClientSecretBasic(`${id}-secret`),
});

/** A user's access token, from the Auth API (scope `read write`). */
async function userToken(): Promise<string> {
  const response = await fetch(`${issuer}/auth/v1/token`, {
    method: 'POST',
    headers: { Authorization: `Basic ${Buffer.from('alice:alice-password').toString('base64')}` },
  });
  return ((await response.json()) as { access_token: string }).access_token;
}

async function tokenRequest(id: string, grantType: string, parameters: Record<string, string>) {
  const { client, auth } = credentials(id);
  return oauth.genericTokenEndpointRequest(as, client, auth, grantType, parameters, insecure);
}

async function granted(id: string, grantType: string, parameters: Record<string, string>) {
  const { client } = credentials(id);
  return oauth.processGenericTokenEndpointResponse(as, client, await tokenRequest(id, grantType, parameters));
}

async function refusal(response: Response): Promise<string> {
  expect(response.status).toBe(400);
  return ((await response.json()) as { error: string }).error;
}

/** A JWT of the partner identity provider. */
function partnerJwt(aud: string, options: { sub?: string; jti?: string; ttl?: number } = {}) {
  const now = Math.floor(Date.now() / 1000);
  return new SignJWT({ scope: 'read' })
    .setProtectedHeader({ alg: 'ES256', kid: 'partner-1' })
    .setIssuer(PARTNER)
    .setSubject(options.sub ?? 'partner-alice')
    .setAudience(aud)
    .setIssuedAt(now)
    .setExpirationTime(now + (options.ttl ?? 60))
    .setJti(options.jti ?? crypto.randomUUID())
    .sign(partnerKey);
}

describe('token exchange policies over HTTP', () => {
  it('advertises both grants', () => {
    expect(as.grant_types_supported).toEqual(expect.arrayContaining([EXCHANGE, JWT_BEARER]));
  });

  it('impersonates only for the client whose policy allows it; the agent is always named in act', async () => {
    const subject = { subject_token: await userToken(), subject_token_type: ACCESS, resource: reports };
    const gateway = await granted('gateway', EXCHANGE, subject);
    expect(decodeJwt(gateway.access_token)).toMatchObject({
      sub: 'user-1',
      aud: reports,
      client_id: 'gateway',
    });
    expect(decodeJwt(gateway.access_token).act).toBeUndefined();
    const agent = await granted('agent', EXCHANGE, subject);
    expect(decodeJwt(agent.access_token).act).toEqual({ sub: 'agent', sub_kind: 'client' });
    // The gateway impersonating with the agent's delegated token: the agent stays on record.
    const again = await granted('gateway', EXCHANGE, { ...subject, subject_token: agent.access_token });
    expect(decodeJwt(again.access_token).act).toEqual({ sub: 'agent', sub_kind: 'client' });
    // The agent presenting the gateway's token as its actor: refused by the policy.
    expect(
      await refusal(
        await tokenRequest('agent', EXCHANGE, {
          ...subject,
          actor_token: gateway.access_token,
          actor_token_type: ACCESS,
        }),
      ),
    ).toBe('unauthorized_client');
    // More than the policy allows the agent: scope, then audience.
    expect(await refusal(await tokenRequest('agent', EXCHANGE, { ...subject, scope: 'read write' }))).toBe(
      'invalid_scope',
    );
    expect(await refusal(await tokenRequest('agent', EXCHANGE, { ...subject, resource: api }))).toBe(
      'invalid_target',
    );
  });

  it("exchanges the partner's JWT, verified by the JWKS its loopback server serves (fetched once)", async () => {
    const before = jwksFetches;
    const exchanged = await granted('gateway', EXCHANGE, {
      subject_token: await partnerJwt(issuer),
      subject_token_type: JWT,
      resource: reports,
      scope: 'read',
    });
    expect(decodeJwt(exchanged.access_token)).toMatchObject({
      iss: issuer,
      sub: 'user-1',
      aud: reports,
      scope: 'read',
    });
    await granted('gateway', EXCHANGE, { subject_token: await partnerJwt(issuer), subject_token_type: JWT });
    expect(jwksFetches - before).toBe(1);
    // For another audience, or signed by another key: refused.
    expect(
      await refusal(
        await tokenRequest('gateway', EXCHANGE, {
          subject_token: await partnerJwt('https://elsewhere.example'),
          subject_token_type: JWT,
        }),
      ),
    ).toBe('invalid_request');
    const { privateKey } = await generateKeyPair('ES256');
    const forged = await new SignJWT({})
      .setProtectedHeader({ alg: 'ES256', kid: 'partner-1' })
      .setIssuer(PARTNER)
      .setSubject('partner-alice')
      .setAudience(issuer)
      .setExpirationTime('1m')
      .sign(privateKey);
    expect(
      await refusal(
        await tokenRequest('gateway', EXCHANGE, { subject_token: forged, subject_token_type: JWT }),
      ),
    ).toBe('invalid_request');
  });

  it('redeems a partner assertion with the JWT bearer grant once, and refuses its replay', async () => {
    const assertion = await partnerJwt(`${issuer}/oauth2/v1/token`);
    const tokens = await granted('app', JWT_BEARER, { assertion, scope: 'read' });
    expect(decodeJwt(tokens.access_token)).toMatchObject({ sub: 'user-1', client_id: 'app', scope: 'read' });
    expect(tokens.refresh_token).toBeUndefined();
    expect(await refusal(await tokenRequest('app', JWT_BEARER, { assertion, scope: 'read' }))).toBe(
      'invalid_grant',
    );
    // Too long-lived, or naming a user the server does not know.
    expect(
      await refusal(
        await tokenRequest('app', JWT_BEARER, { assertion: await partnerJwt(issuer, { ttl: 3600 }) }),
      ),
    ).toBe('invalid_grant');
    expect(
      await refusal(
        await tokenRequest('app', JWT_BEARER, { assertion: await partnerJwt(issuer, { sub: 'stranger' }) }),
      ),
    ).toBe('invalid_grant');
  });
});
