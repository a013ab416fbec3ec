import { ConfigurationError, createGatehouse, memoryClientStore, memoryUserStore } from '@gatehousejs/core';
import { describe, expect, it } from 'vitest';
import { testKey } from '../../../test/fixtures';

async function base() {
  return {
    issuer: 'https://auth.example.com/tenant',
    keys: [await testKey()],
    clients: memoryClientStore([]),
    users: memoryUserStore([]),
  };
}

const policy = () => null;
const jwks = {
  keys: [
    {
      kty: 'EC',
      crv: 'P-256',
      x: 'f83OJ3D2xF1Bg8vub9tLe1gHMzV76e8Tus9uPHvRVEU',
      y: 'x_FEzRu9m36HLN_tue659LNpXW6pCyStikYjKIWI5a0',
    },
  ],
};

describe('tokenExchange and trustedIssuers options', () => {
  it.each([
    ['no policy', { tokenExchange: {} }, /^tokenExchange\.policy: expected a function/],
    [
      'an ID-JAG audience that is no URI',
      { tokenExchange: { policy, idJagAudiences: ['as'] } },
      /^tokenExchange\.idJagAudiences: "as" is not an absolute URI/,
    ],
    [
      'an ID-JAG lifetime over 300 s',
      { tokenExchange: { policy, idJagTtl: 3600 } },
      /^tokenExchange\.idJagTtl: expected a whole number of seconds between 10 and 300/,
    ],
    [
      'a misspelt policy',
      { tokenExchange: { polcy: policy } },
      'tokenExchange.polcy: unknown option (did you mean "tokenExchange.policy"?).',
    ],
    [
      'no keys for an issuer',
      { trustedIssuers: [{ issuer: 'https://idp.example' }] },
      /^trustedIssuers\[0\]: give exactly one of jwks and jwksUri/,
    ],
    [
      'both kinds of keys',
      { trustedIssuers: [{ issuer: 'https://idp.example', jwks, jwksUri: 'https://idp.example/jwks' }] },
      /^trustedIssuers\[0\]: give exactly one/,
    ],
    [
      'a private key',
      { trustedIssuers: [{ issuer: 'https://idp.example', jwks: { keys: [{ ...jwks.keys[0], d: 'x' }] } }] },
      /^trustedIssuers\[0\]\.jwks: expected a JWK Set of public asymmetric keys/,
    ],
    [
      'this instance as a trusted issuer',
      { trustedIssuers: [{ issuer: 'https://auth.example.com/tenant', jwks }] },
      /^trustedIssuers\[0\]\.issuer: is this instance's own issuer/,
    ],
    [
      'an issuer listed twice',
      {
        trustedIssuers: [
          { issuer: 'https://idp.example', jwks },
          { issuer: 'https://idp.example', jwks },
        ],
      },
      /^trustedIssuers\[1\]\.issuer: "https:\/\/idp\.example" is listed twice/,
    ],
    [
      'an ID-JAG as an exchanged JWT type',
      {
        trustedIssuers: [{ issuer: 'https://idp.example', jwks, exchangeTyps: ['JWT', 'oauth-id-jag+jwt'] }],
      },
      /^trustedIssuers\[0\]\.exchangeTyps: "oauth-id-jag\+jwt" is the typ of a JWT that is no subject's token/,
    ],
    [
      'exchanged JWT types that are no strings',
      { trustedIssuers: [{ issuer: 'https://idp.example', jwks, exchangeTyps: [''] }] },
      /^trustedIssuers\[0\]\.exchangeTyps: expected at most 16 JWT typ values/,
    ],
    [
      'a jwksUri that is no URL',
      { trustedIssuers: [{ issuer: 'https://idp.example', jwksUri: 'jwks.json' }] },
      /^trustedIssuers\[0\]\.jwksUri: expected an absolute http\(s\) URL/,
    ],
  ])('refuses %s with a precise message', async (_name, override, message) => {
    const options = { ...(await base()), ...(override as object) } as Parameters<typeof createGatehouse>[0];
    expect(() => createGatehouse(options)).toThrow(ConfigurationError);
    expect(() => createGatehouse(options)).toThrow(message);
  });

  it('accepts a complete configuration', async () => {
    const gatehouse = createGatehouse({
      ...(await base()),
      tokenExchange: { policy, idJagAudiences: ['https://mcp-auth.example.com'], idJagTtl: 120 },
      trustedIssuers: [{ issuer: 'https://idp.example', jwks, jwtBearer: true, userId: () => null }],
    });
    await gatehouse.ready();
    expect(gatehouse.issuer).toBe('https://auth.example.com/tenant');
  });
});
