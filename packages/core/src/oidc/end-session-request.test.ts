import { type ClientRecord, generateKeys, memoryClientStore } from '@gatehousejs/core';
import { describe, expect, it } from 'vitest';
import { ISSUER, testKey } from '../../test/fixtures';
import type { Context } from '../context';
import { Params } from '../http/form';
import { importKeySet } from '../tokens/keys';
import { endSessionNeedsConfirmation, validateEndSessionRequest } from './end-session-request';
import { signIdToken } from './id-token';

const NOW = Date.UTC(2026, 0, 1);
const LOGGED_OUT = 'http://localhost:3000/logged-out';
const clients: ClientRecord[] = [
  {
    id: 'rp',
    type: 'public',
    redirectUris: ['http://localhost:3000/callback'],
    postLogoutRedirectUris: [LOGGED_OUT],
  },
  { id: 'other', type: 'public', redirectUris: ['http://localhost:3000/callback'] },
];

async function context() {
  const keys = await importKeySet([await generateKeys('RS256'), await testKey()], 'ES256');
  return {
    issuer: ISSUER,
    keys,
    clock: { now: () => NOW, toleranceSeconds: 5 },
    tokens: { accessTokenTtl: 3600 },
    clients: memoryClientStore(clients),
  } as unknown as Context;
}

const idToken = (ctx: Context, clientId = 'rp', sid?: string) =>
  signIdToken(ctx, {
    userId: 'user-1',
    clientId,
    authTime: NOW,
    algorithm: 'RS256',
    ...(sid ? { sid } : {}),
  });

const params = (values: Record<string, string>) => new Params(new URLSearchParams(values));

async function codeOf(promise: Promise<unknown>) {
  try {
    await promise;
  } catch (error) {
    return (error as { code: string }).code;
  }
  return 'none';
}

describe('RP-initiated logout requests', () => {
  it('identifies the relying party from an id_token_hint (expired or not) and keeps a registered redirect', async () => {
    const ctx = await context();
    const hint = await idToken(ctx);
    const later = { ...ctx, clock: { now: () => NOW + 30 * 86_400_000, toleranceSeconds: 5 } };
    const request = await validateEndSessionRequest(
      later,
      params({ id_token_hint: hint, post_logout_redirect_uri: LOGGED_OUT, state: 's 1' }),
    );
    expect(request.client?.id).toBe('rp');
    expect(request.hint).toEqual({ sub: 'user-1', audiences: ['rp'] });
    expect(request.postLogoutRedirectUri).toBe(LOGGED_OUT);
    expect(request.state).toBe('s 1');
  });

  it('accepts client_id alone, and redirects only to an exactly registered URI', async () => {
    const ctx = await context();
    expect(
      (
        await validateEndSessionRequest(
          ctx,
          params({ client_id: 'rp', post_logout_redirect_uri: LOGGED_OUT }),
        )
      ).postLogoutRedirectUri,
    ).toBe(LOGGED_OUT);
    for (const uri of [`${LOGGED_OUT}/`, `${LOGGED_OUT}?x=1`, 'https://evil.example/'])
      expect(
        (await validateEndSessionRequest(ctx, params({ client_id: 'rp', post_logout_redirect_uri: uri })))
          .postLogoutRedirectUri,
      ).toBeUndefined();
    expect(
      (
        await validateEndSessionRequest(
          ctx,
          params({ client_id: 'other', post_logout_redirect_uri: LOGGED_OUT }),
        )
      ).postLogoutRedirectUri,
    ).toBeUndefined();
    expect(
      (await validateEndSessionRequest(ctx, params({ post_logout_redirect_uri: LOGGED_OUT })))
        .postLogoutRedirectUri,
    ).toBeUndefined();
  });

  it('refuses a foreign or forged hint, an unknown client, a client the hint was not issued to, and repeated parameters', async () => {
    const ctx = await context();
    const foreign = await idToken({ ...ctx, issuer: 'https://other.example' } as Context);
    expect(await codeOf(validateEndSessionRequest(ctx, params({ id_token_hint: foreign })))).toBe(
      'invalid_request',
    );
    expect(await codeOf(validateEndSessionRequest(ctx, params({ client_id: 'nobody' })))).toBe(
      'invalid_request',
    );
    expect(
      await codeOf(
        validateEndSessionRequest(ctx, params({ client_id: 'other', id_token_hint: await idToken(ctx) })),
      ),
    ).toBe('invalid_request');
    const repeated = new Params(new URLSearchParams('state=a&state=b'));
    expect(await codeOf(validateEndSessionRequest(ctx, repeated))).toBe('invalid_request');
  });

  it('asks for confirmation unless the hint names the session user (and its session)', async () => {
    const ctx = await context();
    const withHint = await validateEndSessionRequest(
      ctx,
      params({ id_token_hint: await idToken(ctx, 'rp', 'sid-1') }),
    );
    const withoutHint = await validateEndSessionRequest(ctx, params({ client_id: 'rp' }));
    expect(endSessionNeedsConfirmation(withHint, { userId: 'user-1', sid: 'sid-1' })).toBe(false);
    expect(endSessionNeedsConfirmation(withHint, { userId: 'user-1', sid: 'sid-2' })).toBe(true);
    expect(endSessionNeedsConfirmation(withHint, { userId: 'user-2' })).toBe(true);
    expect(endSessionNeedsConfirmation(withoutHint, { userId: 'user-1' })).toBe(true);
    expect(endSessionNeedsConfirmation(withoutHint, null)).toBe(false);
  });
});
