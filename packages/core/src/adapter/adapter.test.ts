import {
  answerOf,
  isReply,
  notFoundResponse,
  toResponse,
  withAuthentication,
} from '@gatehousejs/core/adapter';
import { describe, expect, it } from 'vitest';
import { ISSUER, issueTokens, testInstance } from '../../test/fixtures';

describe('the adapter entry', () => {
  it("answers with a Reply for text the instance built, a Response for a double's fetch", async () => {
    const t = await testInstance();
    const metadata = await answerOf(
      t.gatehouse,
      new Request(`${ISSUER}/.well-known/oauth-authorization-server`),
    );
    expect(isReply(metadata)).toBe(true);
    expect((await toResponse(metadata).json()).issuer).toBe(ISSUER);
    const missing = await answerOf(t.gatehouse, new Request(`${ISSUER}/nothing`));
    expect(isReply(missing) && missing.status).toBe(404);

    const double = { handles: () => true, fetch: async () => new Response('double') };
    const answer = await answerOf(double, new Request(`${ISSUER}/x`));
    expect(isReply(answer)).toBe(false);
    expect(await toResponse(answer).text()).toBe('double');
  });

  it('keeps the fast paths off the public instance', async () => {
    const t = await testInstance();
    expect(Object.keys(t.gatehouse).sort()).toEqual(
      [
        'authenticate',
        'basePath',
        'cors',
        'fetch',
        'handles',
        'issuer',
        'metadata',
        'preflight',
        'ready',
        'revokeUser',
        'deleteUser',
        'listGrants',
        'revokeGrant',
        'listSessions',
        'revokeSession',
        'interactions',
        'endSession',
        'keys',
        'connectedApps',
        'revokeApp',
        'ciba',
      ].sort(),
    );
    const { access_token } = await issueTokens(t);
    const request = () =>
      new Request(`${ISSUER}/api`, { headers: { Authorization: `Bearer ${access_token}` } });
    await t.gatehouse.authenticate(request(), { schemes: ['bearer'] });
    expect(withAuthentication(t.gatehouse, request(), { schemes: ['bearer'] }, (result) => result.ok)).toBe(
      true,
    );
  });

  it('gives adapters the core 404 for requests no route takes', async () => {
    const response = notFoundResponse();
    expect(response.status).toBe(404);
    expect(await response.json()).toEqual({ error: 'not_found', error_description: 'No such endpoint.' });
  });
});
