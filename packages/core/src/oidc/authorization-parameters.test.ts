import { describe, expect, it } from 'vitest';
import { parametersAfterLogin, parseOidcParameters } from './authorization-parameters';

const errorOf = (parameters: Record<string, string>) => {
  try {
    parseOidcParameters(parameters);
  } catch (error) {
    return (error as { code: string }).code;
  }
  return 'none';
};

describe('OpenID Connect authorization parameters', () => {
  it('reads nonce, prompt, max_age, login_hint and id_token_hint', () => {
    const parsed = parseOidcParameters({
      nonce: 'n-0S6',
      prompt: 'login consent',
      max_age: '300',
      login_hint: 'demo',
      id_token_hint: 'a.b.c',
      ui_locales: 'fr-CA fr en',
      acr_values: 'urn:mace:incommon:iap:silver',
      response_mode: 'query',
      claims: '{"userinfo":{}}',
    });
    expect(parsed).toEqual({
      nonce: 'n-0S6',
      prompt: new Set(['login', 'consent']),
      maxAge: 300,
      loginHint: 'demo',
      idTokenHint: 'a.b.c',
      uiLocales: ['fr-CA', 'fr', 'en'],
      acrValues: ['urn:mace:incommon:iap:silver'],
    });
    expect(parseOidcParameters({})).toEqual({ prompt: new Set(), uiLocales: [], acrValues: [] });
    expect(parseOidcParameters({ max_age: '0' }).maxAge).toBe(0);
  });

  it('refuses request objects with their own error codes (Core section 6)', () => {
    expect(errorOf({ request: 'eyJ...' })).toBe('request_not_supported');
    expect(errorOf({ request_uri: 'https://rp.example/r' })).toBe('request_uri_not_supported');
  });

  it('refuses unsupported or contradictory prompts, bad max_age, other response modes and oversized values', () => {
    expect(errorOf({ prompt: 'select_account' })).toBe('invalid_request');
    expect(errorOf({ prompt: 'none login' })).toBe('invalid_request');
    expect(errorOf({ prompt: 'none' })).toBe('none');
    for (const maxAge of ['-1', '1.5', 'soon', '12345678901'])
      expect(errorOf({ max_age: maxAge })).toBe('invalid_request');
    expect(errorOf({ response_mode: 'fragment' })).toBe('invalid_request');
    expect(errorOf({ nonce: 'n'.repeat(513) })).toBe('invalid_request');
    expect(errorOf({ nonce: 'n'.repeat(512) })).toBe('none');
    expect(errorOf({ login_hint: 'u'.repeat(257) })).toBe('invalid_request');
    expect(errorOf({ id_token_hint: 't'.repeat(8193) })).toBe('invalid_request');
    expect(errorOf({ ui_locales: 'e'.repeat(257) })).toBe('invalid_request');
    expect(errorOf({ acr_values: 'a'.repeat(257) })).toBe('invalid_request');
  });

  it('continues after a login without what asked for it, so that the login is not asked again', () => {
    expect(
      parametersAfterLogin({
        client_id: 'c',
        prompt: 'login consent',
        max_age: '0',
        id_token_hint: 'x',
        nonce: 'n',
      }),
    ).toEqual({ client_id: 'c', prompt: 'consent', nonce: 'n' });
    expect(parametersAfterLogin({ client_id: 'c', prompt: 'login' })).toEqual({ client_id: 'c' });
  });
});
