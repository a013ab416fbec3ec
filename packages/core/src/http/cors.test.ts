import { memoryClientStore } from '@gatehousejs/core';
import { describe, expect, it } from 'vitest';
import { basic, ISSUER, post, testClients } from '../../test/fixtures';
import { ALLOWED, CLIENT_ORIGIN, ORIGIN, protectInstance } from '../../test/protect-fixtures';

const LOOK_ALIKES = [
  'https://allowed.example.evil.com',
  'https://evilallowed.example',
  'https://allowed.example.',
  'https://ALLOWED.example',
  'https://allowed.example:443',
  'null',
  'https://unlisted.example',
];

function preflight(path: string, origin: string): Request {
  return new Request(ISSUER + path, {
    method: 'OPTIONS',
    headers: {
      Origin: origin,
      'Access-Control-Request-Method': 'POST',
      'Access-Control-Request-Headers': 'authorization',
    },
  });
}

describe('CORS on the OAuth endpoints browsers call', () => {
  it('answers a preflight of the token and revoke endpoints from an allowed origin', async () => {
    const t = await protectInstance({ cors: { allowedOrigins: [ALLOWED], maxAgeSeconds: 120 } });
    for (const path of ['/oauth2/v1/token', '/oauth2/v1/revoke']) {
      for (const origin of [ALLOWED, CLIENT_ORIGIN, ORIGIN]) {
        const response = await t.gatehouse.fetch(preflight(path, origin));
        expect(response.status).toBe(204);
        expect(response.headers.get('access-control-allow-origin')).toBe(origin);
        expect(response.headers.get('access-control-allow-credentials')).toBe('true');
        expect(response.headers.get('access-control-allow-methods')).toBe('POST');
        expect(response.headers.get('access-control-allow-headers')).toBe(
          'Authorization, Content-Type, DPoP',
        );
        expect(response.headers.get('access-control-max-age')).toBe('120');
        expect(response.headers.get('vary')).toContain('Origin');
      }
    }
  });

  it('gives look-alike, null and unlisted origins no CORS headers at all', async () => {
    const t = await protectInstance();
    for (const origin of LOOK_ALIKES) {
      const response = await t.gatehouse.fetch(preflight('/oauth2/v1/token', origin));
      expect(response.headers.get('access-control-allow-origin')).toBeNull();
      expect(response.headers.get('access-control-allow-credentials')).toBeNull();
      expect(response.headers.get('vary')).toContain('Origin');
      const actual = await t.gatehouse.fetch(
        post('/oauth2/v1/token', { grant_type: 'refresh_token' }, { Origin: origin }),
      );
      expect(actual.headers.get('access-control-allow-origin')).toBeNull();
      expect(actual.headers.get('vary')).toContain('Origin');
    }
  });

  it('echoes the allowed origin on actual responses, errors included, never "*"', async () => {
    const t = await protectInstance();
    const response = await t.gatehouse.fetch(
      post(
        '/oauth2/v1/token',
        { grant_type: 'refresh_token', refresh_token: 'unknown' },
        { Origin: ALLOWED, Authorization: basic('demo-client', 'demo-secret') },
      ),
    );
    expect(response.status).toBe(400);
    expect((await response.json()).error).toBe('invalid_grant');
    expect(response.headers.get('access-control-allow-origin')).toBe(ALLOWED);
    expect(response.headers.get('access-control-allow-credentials')).toBe('true');
    expect(response.headers.get('access-control-expose-headers')).toContain('WWW-Authenticate');
    expect(response.headers.get('vary')).toBe('Origin');
    const wrongMethod = await t.gatehouse.fetch(
      new Request(`${ISSUER}/oauth2/v1/revoke`, { headers: { Origin: ALLOWED } }),
    );
    expect(wrongMethod.status).toBe(405);
    expect(wrongMethod.headers.get('access-control-allow-origin')).toBe(ALLOWED);
  });

  it('does not enable CORS on endpoints browsers do not call', async () => {
    const t = await protectInstance();
    for (const path of ['/oauth2/v1/introspect', '/oauth2/v1/authorize', '/oauth2/v1/keys']) {
      const response = await t.gatehouse.fetch(preflight(path, ALLOWED));
      expect({ path, acao: response.headers.get('access-control-allow-origin') }).toEqual({
        path,
        acao: null,
      });
    }
  });

  it('consults the client store for origins outside the static list, without caching', async () => {
    const clients = await testClients();
    const store = memoryClientStore(clients);
    let allowed = true;
    const t = await protectInstance({
      clients: {
        findClient: (id) => store.findClient(id),
        isOriginAllowed: async (origin) => allowed && origin === 'https://spa.example',
      },
    });
    const first = await t.gatehouse.fetch(preflight('/oauth2/v1/token', 'https://spa.example'));
    expect(first.headers.get('access-control-allow-origin')).toBe('https://spa.example');
    allowed = false;
    const second = await t.gatehouse.fetch(preflight('/oauth2/v1/token', 'https://spa.example'));
    expect(second.headers.get('access-control-allow-origin')).toBeNull();
  });

  it('answers 503 when the client store cannot tell whether an origin is allowed', async () => {
    const store = memoryClientStore(await testClients());
    const t = await protectInstance({
      clients: {
        findClient: (id) => store.findClient(id),
        isOriginAllowed: async () => {
          throw new Error('down');
        },
      },
      logger: { warn() {}, error() {} },
    });
    const response = await t.gatehouse.fetch(preflight('/oauth2/v1/token', 'https://spa.example'));
    expect(response.status).toBe(503);
  });
});

describe('gatehouse.cors and gatehouse.preflight for host routes', () => {
  it('adds Vary: Origin to an existing Vary and copies responses with immutable headers', async () => {
    const t = await protectInstance();
    const request = new Request(`${ISSUER}/api/v1/things`, { headers: { Origin: ALLOWED } });
    const varied = await t.gatehouse.cors(
      request,
      new Response('x', { headers: { Vary: 'Accept-Encoding' } }),
    );
    expect(varied.headers.get('vary')).toBe('Accept-Encoding, Origin');
    const redirect = await t.gatehouse.cors(request, Response.redirect('https://example.com/', 302));
    expect(redirect.status).toBe(302);
    expect(redirect.headers.get('access-control-allow-origin')).toBe(ALLOWED);
  });

  it('answers only real preflights', async () => {
    const t = await protectInstance();
    const notPreflight = new Request(`${ISSUER}/api/v1/things`, { method: 'OPTIONS' });
    expect(await t.gatehouse.preflight(notPreflight, ['GET'])).toBeUndefined();
    const answer = await t.gatehouse.preflight(preflight('/api/v1/things', ALLOWED), ['GET', 'DELETE']);
    expect(answer?.headers.get('access-control-allow-methods')).toBe('GET, DELETE');
  });
});
