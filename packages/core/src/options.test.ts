import {
  ConfigurationError,
  createGatehouse,
  generateKeys,
  memoryClientStore,
  memoryUserStore,
} from '@gatehousejs/core';
import { describe, expect, it } from 'vitest';
import { testKey } from '../test/fixtures';

async function base() {
  return {
    issuer: 'https://auth.example.com/tenant',
    keys: [await testKey()],
    clients: memoryClientStore([]),
    users: memoryUserStore([]),
  };
}

describe('createGatehouse options', () => {
  it('derives the base path from the issuer and strips a trailing slash', async () => {
    const gatehouse = createGatehouse({ ...(await base()), issuer: 'https://auth.example.com/tenant/' });
    expect(gatehouse.issuer).toBe('https://auth.example.com/tenant');
    expect(gatehouse.basePath).toBe('/tenant');
  });

  it.each([
    ['not a URL', { issuer: 'auth.example.com' }, /not an absolute URL/],
    ['http outside loopback', { issuer: 'http://auth.example.com' }, /not https/],
    ['a query in the issuer', { issuer: 'https://auth.example.com/t?x=1' }, /query or fragment/],
    ['no keys', { keys: [] }, /at least one private JWK/],
    [
      'a key list passed as JSON text',
      { keys: '[{"kty":"EC"}]' },
      /keys: expected an array of private JWK objects, got a string \(parse .* JSON.parse/,
    ],
    [
      'a JWK passed as JSON text',
      { keys: ['{"kty":"EC"}'] },
      /keys\[0\]: expected a JWK object, got a string/,
    ],
    ['an unsupported algorithm', { algorithm: 'HS256' }, /not supported/],
    ['a zero lifetime', { accessTokenTtl: 0 }, /accessTokenTtl/],
    ['a code lifetime over 10 minutes', { authorizationCodeTtl: 3600 }, /authorizationCodeTtl/],
    ['a bad cookie name', { session: { cookieName: 'a b' } }, /cookieName/],
    [
      'an allowed origin with a path',
      { cors: { allowedOrigins: ['https://app.example.com/'] } },
      /not an origin/,
    ],
    ['no client store', { clients: undefined }, /ClientStore/],
    ['a misspelt option', { scope: ['read'] }, 'scope: unknown option (did you mean "scopes"?).'],
    [
      'a misspelt nested option',
      { session: { idleTimout: 60 } },
      'session.idleTimout: unknown option (did you mean "session.idleTimeout"?).',
    ],
    ['an unknown option', { tenantMode: true }, /^tenantMode: unknown option\.$/],
  ])('refuses %s with a precise message', async (_name, override, message) => {
    const options = { ...(await base()), ...(override as object) };
    expect(() => createGatehouse(options)).toThrow(ConfigurationError);
    expect(() => createGatehouse(options)).toThrow(message);
  });

  it('allows http on loopback, and elsewhere only when asked', async () => {
    const options = await base();
    expect(createGatehouse({ ...options, issuer: 'http://127.0.0.1:8080' }).basePath).toBe('');
    expect(
      createGatehouse({ ...options, issuer: 'http://intranet/x', allowInsecureIssuer: true }).issuer,
    ).toBe('http://intranet/x');
  });

  it('refuses a key that does not fit the algorithm', async () => {
    const eddsa = await generateKeys('EdDSA');
    const options = { ...(await base()), keys: [eddsa] };
    expect(() => createGatehouse(options)).toThrow(/P-256/);
    const gatehouse = createGatehouse({ ...options, algorithm: 'EdDSA' });
    await expect(gatehouse.ready()).resolves.toBeUndefined();
  });

  it('refuses a public key as the signing key', async () => {
    const { d: _d, ...publicOnly } = await testKey();
    const options = { ...(await base()), keys: [publicOnly as never] };
    expect(() => createGatehouse(options)).toThrow(/must be a private JWK/);
  });
});
