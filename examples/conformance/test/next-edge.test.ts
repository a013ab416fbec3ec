/**
 * The Edge-runtime proof: the built Next.js example under `next start` serves a second, minimal
 * instance at `/edge` from a route declared `runtime = 'edge'` (`examples/next/src/app/edge/`),
 * importing only `@gatehousejs/core` and `@gatehousejs/next`. These flows run against it over HTTP,
 * and every answer must say it came from the Edge runtime (`x-gatehouse-runtime`, computed from
 * the `EdgeRuntime` global that only that runtime defines).
 */
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EDGE } from '../../next/src/lib/edge';
import { type RunningTarget, startTarget } from '../src/harness.js';
import { TARGETS } from '../src/targets.js';

const basic = (id: string, secret: string) =>
  `Basic ${Buffer.from(`${encodeURIComponent(id)}:${encodeURIComponent(secret)}`).toString('base64')}`;
const userBasic = (username: string, password: string) =>
  `Basic ${Buffer.from(`${username}:${password}`, 'utf8').toString('base64')}`;

describe('next: the /edge instance on the Edge runtime', () => {
  let server: RunningTarget;
  let issuer: string;
  const at = (path: string) => issuer + path;

  /** Fetches and checks the answer came from the Edge runtime. */
  const edgeFetch = async (path: string, init?: RequestInit): Promise<Response> => {
    const response = await fetch(at(path), init);
    expect(response.headers.get('x-gatehouse-runtime')).toBe('edge');
    return response;
  };

  const authApiToken = async (): Promise<string> => {
    const issued = await edgeFetch('/auth/v1/token', {
      method: 'POST',
      headers: { Authorization: userBasic(EDGE.user.username, EDGE.user.password) },
    });
    expect(issued.status).toBe(200);
    expect(issued.headers.get('cache-control')).toBe('no-store');
    return ((await issued.json()) as { access_token: string }).access_token;
  };

  const selfIntrospect = async (token: string) => {
    const response = await edgeFetch('/auth/v1/token/introspect', {
      method: 'POST',
      headers: { Authorization: `Bearer ${token}` },
    });
    expect(response.status).toBe(200);
    return (await response.json()) as { active: boolean; sub?: string; iss?: string; token_family?: string };
  };

  beforeAll(async () => {
    server = await startTarget(TARGETS.next);
    issuer = server.origin + EDGE.instancePath;
  });
  afterAll(async () => {
    await server?.stop();
  });

  it('is built as an Edge function by next build', () => {
    const manifest = JSON.parse(
      readFileSync(new URL('../../next/.next/server/middleware-manifest.json', import.meta.url), 'utf8'),
    ) as { functions: Record<string, { page: string }> };
    expect(Object.values(manifest.functions).map((f) => f.page)).toContain('/edge/[...gatehouse]/route');
    // The Node-runtime demo stays off the Edge.
    expect(Object.keys(manifest.functions).some((page) => page.startsWith('/demo'))).toBe(false);
  });

  it('serves RFC 8414 metadata for the issuer /edge', async () => {
    const response = await edgeFetch('/.well-known/oauth-authorization-server');
    expect(response.status).toBe(200);
    const metadata = (await response.json()) as Record<string, unknown>;
    expect(metadata.issuer).toBe(issuer);
    expect(metadata.token_endpoint).toBe(`${issuer}/oauth2/v1/token`);
    expect(metadata.jwks_uri).toBe(`${issuer}/oauth2/v1/keys`);
  });

  it('publishes the signing key generated on the Edge', async () => {
    const response = await edgeFetch('/oauth2/v1/keys');
    expect(response.status).toBe(200);
    const { keys } = (await response.json()) as { keys: Record<string, unknown>[] };
    expect(keys).toHaveLength(1);
    expect(keys[0]).toMatchObject({ kty: 'EC', crv: 'P-256' });
    expect(keys[0]).not.toHaveProperty('d');
  });

  it('issues an Auth API token, introspects it, revokes it, then reports it inactive', async () => {
    const token = await authApiToken();
    expect(await selfIntrospect(token)).toMatchObject({
      active: true,
      sub: EDGE.user.id,
      iss: issuer,
      token_family: 'auth_api',
    });
    const revoked = await edgeFetch('/auth/v1/token/revoke', {
      method: 'POST',
      headers: { Authorization: `Bearer ${token}` },
    });
    expect(revoked.status).toBe(200);
    expect(await revoked.json()).toEqual({});
    expect(await selfIntrospect(token)).toEqual({ active: false });
  });

  it('refuses a wrong password with 401 and a Basic challenge', async () => {
    const refused = await edgeFetch('/auth/v1/token', {
      method: 'POST',
      headers: { Authorization: userBasic(EDGE.user.username, 'wrong-password') },
    });
    expect(refused.status).toBe(401);
    expect((await refused.json()).error).toBeTypeOf('string');
  });

  it('lets the confidential client introspect an Auth API token, and refuses a wrong secret', async () => {
    const token = await authApiToken();
    const asClient = (secret: string) =>
      edgeFetch('/auth/v1/token/introspect', {
        method: 'POST',
        headers: {
          Authorization: basic(EDGE.client.id, secret),
          'Content-Type': 'application/x-www-form-urlencoded',
        },
        body: new URLSearchParams({ token }).toString(),
      });
    const active = await asClient(EDGE.client.secret);
    expect(active.status).toBe(200);
    expect(await active.json()).toMatchObject({ active: true, sub: EDGE.user.id });
    const refused = await asClient('not-the-secret');
    expect(refused.status).toBe(401);
    expect((await refused.json()).error).toBe('invalid_client');
  });

  it('answers an unknown path below /edge with 404 JSON', async () => {
    const response = await edgeFetch('/no/such/endpoint');
    expect(response.status).toBe(404);
    expect(response.headers.get('content-type')).toMatch(/^application\/json/);
    expect(await response.json()).toEqual({ error: 'not_found', error_description: 'No such endpoint.' });
  });

  it('leaves the Node-runtime demo on Node', async () => {
    const response = await fetch(`${server.issuer}/.well-known/oauth-authorization-server`);
    expect(response.status).toBe(200);
    expect(response.headers.get('x-gatehouse-runtime')).toBeNull();
    expect((await response.json()).issuer).toBe(server.issuer);
  });
});
