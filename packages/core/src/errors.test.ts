import { ERROR_TABLE, ProtocolError, type ProtocolErrorCode } from '@gatehousejs/core';
import { describe, expect, it } from 'vitest';
import { basic, ISSUER, post, testInstance } from '../test/fixtures';

describe('the error table', () => {
  it('gives every code one status, and the 401 codes a challenge requirement', () => {
    const codes = Object.keys(ERROR_TABLE) as ProtocolErrorCode[];
    for (const code of codes) {
      const { status } = ERROR_TABLE[code];
      expect(status >= 400 && status < 600, code).toBe(true);
      expect('challenge' in ERROR_TABLE[code], code).toBe(status === 401);
    }
    expect(ERROR_TABLE).toMatchObject({
      invalid_request: { status: 400 },
      invalid_client: { status: 401 },
      invalid_grant: { status: 400 },
      invalid_token: { status: 401 },
      insufficient_scope: { status: 403 },
      invalid_target: { status: 400 },
      not_found: { status: 404 },
      method_not_allowed: { status: 405 },
      payload_too_large: { status: 413 },
      too_many_requests: { status: 429 },
      server_error: { status: 500 },
      temporarily_unavailable: { status: 503 },
    });
  });

  it('answers with the status of the code, never cached, with the headers the options name', async () => {
    const limited = new ProtocolError('too_many_requests', 'Slow down.', { retryAfter: 30 });
    const response = limited.toResponse();
    expect(response.status).toBe(429);
    expect(response.headers.get('retry-after')).toBe('30');
    expect(response.headers.get('cache-control')).toBe('no-store');
    expect(response.headers.get('pragma')).toBe('no-cache');
    expect(response.headers.get('content-type')).toBe('application/json;charset=UTF-8');
    expect(await response.json()).toEqual({ error: 'too_many_requests', error_description: 'Slow down.' });

    const notAllowed = new ProtocolError('method_not_allowed', 'Use GET.', { allow: ['GET', 'HEAD'] });
    expect(notAllowed.toResponse().headers.get('allow')).toBe('GET, HEAD');
  });

  it('answers a failed HTTP authentication 401 with its challenge, whatever the code', () => {
    const challenge = 'Basic realm="x", charset="UTF-8"';
    const failed = new ProtocolError('invalid_request', 'No credentials.', {
      challenge,
      unauthenticated: true,
    });
    expect(failed.status).toBe(401);
    expect(failed.headers).toEqual({ 'WWW-Authenticate': challenge });
    // A challenge alone does not change the status (RFC 6750 §3.1 challenges a 400 too).
    expect(new ProtocolError('invalid_request', 'Malformed.', { challenge }).status).toBe(400);
  });

  it('keeps descriptions within the characters RFC 6749 §5.2 allows', () => {
    const error = new ProtocolError('invalid_request', 'The "x" parameter § 5 is \\ wrong: é');
    expect(error.description).toBe("The 'x' parameter section 5 is / wrong: ?");
  });

  it('refuses a code outside the table (a host passing an unknown string)', () => {
    expect(() => new ProtocolError('conflict' as ProtocolErrorCode, 'x')).toThrow(TypeError);
  });
});

describe('error answers of an instance', () => {
  it('answers a failing store 503 temporarily_unavailable with Retry-After, and logs the cause', async () => {
    const logged: unknown[] = [];
    const failing = new Error('connection refused');
    const t = await testInstance({
      logger: { warn: () => {}, error: (...args: unknown[]) => void logged.push(...args) },
      clients: {
        findClient: async () => {
          throw failing;
        },
      },
    });
    const response = await t.gatehouse.fetch(
      post(
        '/oauth2/v1/token',
        { grant_type: 'refresh_token', refresh_token: 'x' },
        {
          Authorization: basic('demo-client', 'demo-secret'),
        },
      ),
    );
    expect(response.status).toBe(503);
    expect(response.headers.get('retry-after')).toBe('1');
    expect(response.headers.get('cache-control')).toBe('no-store');
    expect((await response.json()).error).toBe('temporarily_unavailable');
    expect(logged).toContain(failing);
  });

  it('answers every unknown path with the one 404 JSON answer', async () => {
    const t = await testInstance();
    for (const url of [
      `${ISSUER}/nothing`,
      'http://localhost:3000/elsewhere',
      `${ISSUER}/oauth2/v1/token/`,
      'http://localhost:3000/.well-known/oauth-authorization-server/other',
    ]) {
      const response = await t.gatehouse.fetch(new Request(url));
      expect(response.status, url).toBe(404);
      expect(await response.json()).toEqual({ error: 'not_found', error_description: 'No such endpoint.' });
      expect(t.gatehouse.handles(url)).toBe(false);
    }
  });

  it('answers another method with the one 405 naming the allowed methods', async () => {
    const t = await testInstance();
    const cases: [string, string, string][] = [
      ['DELETE', '/oauth2/v1/token', 'POST'],
      ['POST', '/oauth2/v1/keys', 'GET, HEAD'],
      ['PUT', '/.well-known/oauth-authorization-server', 'GET, HEAD'],
      ['HEAD', '/oauth2/v1/authorize', 'GET, POST'],
    ];
    for (const [method, path, allow] of cases) {
      const response = await t.gatehouse.fetch(new Request(ISSUER + path, { method }));
      expect(response.status, `${method} ${path}`).toBe(405);
      expect(response.headers.get('allow')).toBe(allow);
      if (method !== 'HEAD') expect((await response.json()).error).toBe('method_not_allowed');
    }
  });
});
