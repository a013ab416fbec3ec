import { ProtocolError } from '@gatehousejs/core';
import { type Caller, defineOperations } from '@gatehousejs/core/protect';
import { describe, expect, it } from 'vitest';
import { ISSUER } from '../../test/fixtures';
import { ALLOWED, API, apiPost, ORIGIN, protectInstance } from '../../test/protect-fixtures';

async function instanceWithApi() {
  const logged: unknown[][] = [];
  const logger = { warn: () => {}, error: (...args: unknown[]) => void logged.push(args) };
  const t = await protectInstance({ logger });
  const seen: { caller: Caller; params: Record<string, string> }[] = [];
  const api = defineOperations(t.gatehouse, {
    'POST /api/v1/tickets': {
      schemes: ['bearer', 'session'],
      handler: async (_request, caller, params) => {
        seen.push({ caller, params });
        return Response.json({ sub: caller.sub });
      },
    },
    'GET /api/v1/tickets/:id': {
      schemes: ['bearer'],
      scope: 'read',
      handler: (_request, caller, params) => Response.json({ id: params.id, sub: caller.sub }),
    },
    'DELETE /api/v1/tickets/:id': {
      schemes: ['bearer'],
      handler: () => {
        throw new ProtocolError('not_found', 'No such ticket.');
      },
    },
    'PUT /api/v1/tickets/:id': {
      schemes: ['bearer'],
      handler: () => {
        throw new Error('bug in the handler');
      },
    },
  });
  return { ...t, api, seen, logged };
}

describe('defineOperations', () => {
  it('runs the handler with the authenticated caller and the path parameters', async () => {
    const t = await instanceWithApi();
    const token = await t.oauthToken('read');
    const created = await t.api(apiPost({ Authorization: `Bearer ${token}` }));
    expect(created?.status).toBe(200);
    expect(await created?.json()).toEqual({ sub: 'user-1' });
    const read = await t.api(new Request(`${API}/T%2042`, { headers: { Authorization: `Bearer ${token}` } }));
    expect(await read?.json()).toEqual({ id: 'T 42', sub: 'user-1' });
    const head = await t.api(
      new Request(`${API}/7`, { method: 'HEAD', headers: { Authorization: `Bearer ${token}` } }),
    );
    expect(head?.status).toBe(200);
    expect(await head?.text()).toBe('');
  });

  it('leaves other paths to the host', async () => {
    const t = await instanceWithApi();
    for (const url of [
      `${ISSUER}/api/v1/other`,
      `${ISSUER}/api/v1/tickets/1/comments`,
      'http://localhost:3000/api/v1/tickets',
      `${ISSUER}x/api/v1/tickets`,
    ]) {
      expect(await t.api(new Request(url, { method: 'POST' }))).toBeUndefined();
    }
  });

  it('answers authentication failures itself, with CORS headers for allowed origins', async () => {
    const t = await instanceWithApi();
    const denied = await t.api(apiPost({ Origin: ALLOWED }));
    expect(denied?.status).toBe(401);
    expect(denied?.headers.get('www-authenticate')).toBe(`Bearer realm="${ISSUER}"`);
    expect(denied?.headers.get('access-control-allow-origin')).toBe(ALLOWED);
    expect(t.seen).toHaveLength(0);
    const scope = await t.api(
      new Request(`${API}/1`, { headers: { Authorization: `Bearer ${await t.oauthToken('write')}` } }),
    );
    expect(scope?.status).toBe(403);
    const csrf = await t.api(apiPost({ Cookie: await t.sessionCookie(), Origin: 'https://evil.example' }));
    expect(csrf?.status).toBe(403);
    expect(csrf?.headers.get('access-control-allow-origin')).toBeNull();
    expect(t.seen).toHaveLength(0);
  });

  it('accepts a session from the instance origin', async () => {
    const t = await instanceWithApi();
    const response = await t.api(apiPost({ Cookie: await t.sessionCookie(), Origin: ORIGIN }));
    expect(response?.status).toBe(200);
    expect(t.seen[0]?.caller.scheme).toBe('session');
  });

  it('answers preflights and undeclared methods of a known path', async () => {
    const t = await instanceWithApi();
    const preflight = await t.api(
      new Request(`${API}/1`, {
        method: 'OPTIONS',
        headers: { Origin: ALLOWED, 'Access-Control-Request-Method': 'DELETE' },
      }),
    );
    expect(preflight?.status).toBe(204);
    expect(preflight?.headers.get('access-control-allow-methods')).toBe('GET, DELETE, PUT');
    expect(preflight?.headers.get('access-control-allow-origin')).toBe(ALLOWED);
    const patch = await t.api(new Request(`${API}/1`, { method: 'PATCH', headers: { Origin: ALLOWED } }));
    expect(patch?.status).toBe(405);
    expect(patch?.headers.get('allow')).toBe('GET, DELETE, PUT, HEAD');
    expect(patch?.headers.get('access-control-allow-origin')).toBe(ALLOWED);
  });

  it('turns a ProtocolError of a handler into its JSON answer', async () => {
    const t = await instanceWithApi();
    const auth = { Authorization: `Bearer ${await t.oauthToken()}` };
    const missing = await t.api(new Request(`${API}/1`, { method: 'DELETE', headers: auth }));
    expect(missing?.status).toBe(404);
    expect(await missing?.json()).toEqual({ error: 'not_found', error_description: 'No such ticket.' });
    expect(t.logged).toEqual([]);
  });

  it('logs any other error of a handler, without the request, and answers 500 server_error with CORS', async () => {
    const t = await instanceWithApi();
    const token = await t.oauthToken();
    const response = await t.api(
      new Request(`${API}/1?secret=query`, {
        method: 'PUT',
        headers: { Authorization: `Bearer ${token}`, Origin: ALLOWED },
      }),
    );
    expect(response?.status).toBe(500);
    expect(response?.headers.get('cache-control')).toBe('no-store');
    expect(response?.headers.get('access-control-allow-origin')).toBe(ALLOWED);
    const body = await response?.text();
    expect(JSON.parse(body!)).toEqual({
      error: 'server_error',
      error_description: 'The server could not complete the request.',
    });
    expect(body).not.toContain('bug');
    expect(t.logged).toHaveLength(1);
    const [message, error] = t.logged[0]!;
    expect(message).toBe('gatehouse: operation "PUT /api/v1/tickets/:id" failed');
    expect((error as Error).message).toBe('bug in the handler');
    const line = `${message} ${String(error)}`;
    expect(line).not.toContain(token);
    expect(line).not.toContain('secret=query');
  });

  it('refuses malformed tables at definition', async () => {
    const t = await protectInstance();
    const handler = () => new Response();
    expect(() =>
      defineOperations(t.gatehouse, { 'FETCH /x': { schemes: ['bearer'], handler } } as never),
    ).toThrow(TypeError);
    expect(() =>
      defineOperations(t.gatehouse, { 'GET x': { schemes: ['bearer'], handler } } as never),
    ).toThrow(TypeError);
    expect(() => defineOperations(t.gatehouse, { 'GET /x': { schemes: [], handler } })).toThrow(TypeError);
    expect(() => defineOperations(t.gatehouse, { 'GET /x': { schemes: ['bearer'] } } as never)).toThrow(
      TypeError,
    );
  });
});
