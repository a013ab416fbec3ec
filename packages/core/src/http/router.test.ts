import { describe, expect, it } from 'vitest';
import { testInstance } from '../../test/fixtures';
import { methodHandler, type RoutePattern, Router } from './router';

const route = (path: string, extra: Partial<RoutePattern<string>> = {}): RoutePattern<string> => ({
  path,
  methods: { GET: path },
  ...extra,
});

const WELL_KNOWN = route('/.well-known/oauth-authorization-server', {
  aliases: ['/.well-known/oauth-authorization-server{mount}'],
});

describe('the router', () => {
  it('serves routes below the mount prefix, and aliases where they name the mount', () => {
    const router = new Router('/demo', [route('/oauth2/v1/token'), WELL_KNOWN]);
    expect(router.match('/demo/oauth2/v1/token')?.route.path).toBe('/oauth2/v1/token');
    expect(router.match('/demo/.well-known/oauth-authorization-server')?.route).toBe(WELL_KNOWN);
    expect(router.match('/.well-known/oauth-authorization-server/demo')?.route).toBe(WELL_KNOWN);
    for (const path of [
      '/oauth2/v1/token',
      '/demo/oauth2/v1/token/',
      '/demo/oauth2/v1/%74oken',
      '/demo/x/../oauth2/v1/token',
      '/.well-known/oauth-authorization-server',
      '/demox/oauth2/v1/token',
    ]) {
      expect(router.match(path), path).toBeUndefined();
    }
  });

  it('folds an alias that equals the path at the origin root into the route', () => {
    const router = new Router('', [WELL_KNOWN]);
    expect(router.match('/.well-known/oauth-authorization-server')?.route).toBe(WELL_KNOWN);
  });

  it('takes a mount pattern, as several instances under one origin need', () => {
    const router = new Router('/:instance', [route('/oauth2/v1/token'), WELL_KNOWN]);
    expect(router.match('/tenant-a/oauth2/v1/token')).toEqual({
      route: expect.objectContaining({ path: '/oauth2/v1/token' }),
      params: { instance: 'tenant-a' },
    });
    expect(router.match('/.well-known/oauth-authorization-server/tenant%20b')?.params).toEqual({
      instance: 'tenant b',
    });
    expect(router.match('//oauth2/v1/token')).toBeUndefined();
  });

  it('decodes parameters, and refuses empty or malformed ones', () => {
    const router = new Router('', [route('/tickets/:id/comments/:n')]);
    expect(router.match('/tickets/T%2042/comments/7')?.params).toEqual({ id: 'T 42', n: '7' });
    expect(router.match('/tickets//comments/7')).toBeUndefined();
    expect(router.match('/tickets/%E0%A4%A/comments/7')).toBeUndefined();
  });

  it('lets the first declared route win where patterns overlap, literal or not', () => {
    const byId = route('/tickets/:id');
    const mine = route('/tickets/mine');
    expect(new Router('', [byId, mine]).match('/tickets/mine')?.route).toBe(byId);
    expect(new Router('', [mine, byId]).match('/tickets/mine')?.route).toBe(mine);
    expect(new Router('', [mine, byId]).match('/tickets/7')?.route).toBe(byId);
  });

  it('refuses two routes at one path, also through an alias or other parameter names', () => {
    expect(() => new Router('', [route('/a'), route('/a')])).toThrow(TypeError);
    expect(() => new Router('', [route('/a/:x'), route('/a/:y')])).toThrow(TypeError);
    expect(() => new Router('/demo', [route('/b', { aliases: ['{mount}/a'] }), route('/a')])).toThrow(
      TypeError,
    );
    expect(() => new Router('', [route('relative')])).toThrow(TypeError);
  });

  it('picks the handler by method: HEAD by a safe GET, anything else 405 with Allow', () => {
    const both = route('/x', { methods: { GET: 'get', POST: 'post' } });
    expect(methodHandler(both, 'POST')).toEqual({ handler: 'post', head: false });
    expect(methodHandler(both, 'HEAD')).toEqual({ handler: 'get', head: true });
    for (const method of ['PUT', 'constructor', 'toString']) {
      expect(() => methodHandler(both, method)).toThrow(
        expect.objectContaining({ code: 'method_not_allowed', headers: { Allow: 'GET, POST, HEAD' } }),
      );
    }
    const unsafe = route('/authorize', { methods: { GET: 'get' }, unsafeGet: true });
    expect(() => methodHandler(unsafe, 'HEAD')).toThrow(
      expect.objectContaining({ status: 405, headers: { Allow: 'GET' } }),
    );
  });
});

describe('the routes of an instance', () => {
  it('serve the RFC 8414 metadata at both locations for an issuer at the origin root', async () => {
    const t = await testInstance({ issuer: 'http://localhost:3000' });
    const response = await t.gatehouse.fetch(
      new Request('http://localhost:3000/.well-known/oauth-authorization-server'),
    );
    expect(response.status).toBe(200);
    expect((await response.json()).issuer).toBe('http://localhost:3000');
    expect(t.gatehouse.handles('http://localhost:3000/oauth2/v1/token')).toBe(true);
    expect(t.gatehouse.handles('http://localhost:3000/.well-known/oauth-authorization-server/demo')).toBe(
      false,
    );
  });
});
