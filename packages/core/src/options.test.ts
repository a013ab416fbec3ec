import {
  ConfigurationError,
  createGatehouse,
  generateKeys,
  memoryClientStore,
  memoryUserStore,
} from '@gatehousejs/core';
import { describe, expect, it, vi } from 'vitest';
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
  it('derives the base path from the issuer', async () => {
    const gatehouse = createGatehouse(await base());
    expect(gatehouse.issuer).toBe('https://auth.example.com/tenant');
    expect(gatehouse.basePath).toBe('/tenant');
    expect(createGatehouse({ ...(await base()), issuer: 'https://auth.example.com' }).basePath).toBe('');
  });

  it('refuses an issuer written otherwise than it is used (trailing slash, upper case, default port), naming the form to give', async () => {
    const options = await base();
    for (const [given, used] of [
      ['https://auth.example.com/tenant/', 'https://auth.example.com/tenant'],
      ['https://auth.example.com/', 'https://auth.example.com'],
      ['https://Auth.Example.com/tenant', 'https://auth.example.com/tenant'],
      ['https://auth.example.com:443/tenant', 'https://auth.example.com/tenant'],
    ]) {
      expect(() => createGatehouse({ ...options, issuer: given! })).toThrow(
        expect.objectContaining({
          name: 'ConfigurationError',
          code: 'ERR_CONFIG_INVALID_OPTION',
          option: 'issuer',
          message: `issuer: "${given}" is not written as the issuer identifier it stands for, "${used}" (without a trailing slash, host in lower case, no default port): give "${used}", and configure relying parties with exactly that.`,
        }),
      );
    }
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

  it('refuses a key generated in this process under NODE_ENV=production, unless allowed', async () => {
    const generated = await generateKeys();
    const stored = JSON.parse(JSON.stringify(generated));
    vi.stubEnv('NODE_ENV', 'production');
    try {
      const options = { ...(await base()), keys: [generated] };
      expect(() => createGatehouse(options)).toThrow(
        /keys\[0\]: a key generated by generateKeys\(\) in this process/,
      );
      expect(() => createGatehouse({ ...options, allowEphemeralKeys: true })).not.toThrow();
      // The same key, stored and read back, is a configured key.
      expect(() => createGatehouse({ ...options, keys: [stored] })).not.toThrow();
    } finally {
      vi.unstubAllEnvs();
    }
    const outsideProduction = { ...(await base()), keys: [generated] };
    expect(() => createGatehouse(outsideProduction)).not.toThrow();
  });
});
