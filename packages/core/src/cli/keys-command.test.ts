import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { createGatehouse, memoryClientStore, memoryUserStore } from '@gatehousejs/core';
import { describe, expect, it } from 'vitest';
import { runKeysCommand } from './keys-command.js';

const bin = fileURLToPath(new URL('../../dist/cli.js', import.meta.url));

describe('gatehouse keys generate', () => {
  it('prints a private JWK that createGatehouse accepts, and the public JWKS the instance then serves', async () => {
    const outcome = await runKeysCommand(['keys', 'generate']);
    expect(outcome.exitCode).toBe(0);
    const { privateJwk, publicJwks } = JSON.parse(outcome.stdout);
    expect(privateJwk).toMatchObject({ kty: 'EC', crv: 'P-256', alg: 'ES256', use: 'sig' });
    expect(typeof privateJwk.d).toBe('string');
    expect(publicJwks.keys[0].d).toBeUndefined();
    const gatehouse = createGatehouse({
      issuer: 'https://auth.example.com',
      keys: [privateJwk],
      clients: memoryClientStore([]),
      users: memoryUserStore([]),
    });
    const served = await gatehouse.fetch(new Request('https://auth.example.com/oauth2/v1/keys'));
    expect(await served.json()).toEqual(publicJwks);
  });

  it('makes EdDSA keys and an env line on request', async () => {
    const outcome = await runKeysCommand(['keys', 'generate', '--alg', 'EdDSA', '--format', 'env']);
    const line = /^GATEHOUSE_SIGNING_KEY='(.+)'\n$/.exec(outcome.stdout);
    expect(JSON.parse(line![1]!)).toMatchObject({ kty: 'OKP', crv: 'Ed25519', alg: 'EdDSA' });
  });

  it("makes an OpenID Provider's ES256 + RS256 set that createGatehouse accepts and publishes", async () => {
    const outcome = await runKeysCommand(['keys', 'generate', '--openid']);
    expect(outcome.exitCode).toBe(0);
    const { privateJwks, publicJwks } = JSON.parse(outcome.stdout);
    expect(privateJwks.map((jwk: { alg: string }) => jwk.alg)).toEqual(['ES256', 'RS256']);
    const gatehouse = createGatehouse({
      issuer: 'https://auth.example.com',
      keys: privateJwks,
      clients: memoryClientStore([]),
      users: memoryUserStore([]),
    });
    const served = await gatehouse.fetch(new Request('https://auth.example.com/oauth2/v1/keys'));
    expect(await served.json()).toEqual(publicJwks);
    const env = await runKeysCommand(['keys', 'generate', '--alg', 'ES256,RS256', '--format', 'env']);
    const line = /^GATEHOUSE_SIGNING_KEY='(.+)'\n$/.exec(env.stdout);
    expect(JSON.parse(line![1]!).map((jwk: { kty: string }) => jwk.kty)).toEqual(['EC', 'RSA']);
  });

  it('answers an unknown command or option with the usage and exit code 2', async () => {
    for (const args of [
      [],
      ['keys'],
      ['keys', 'generate', '--alg', 'HS256'],
      ['keys', 'generate', '--alg'],
      ['keys', 'generate', '--alg', 'ES256,HS256'],
    ]) {
      const outcome = await runKeysCommand(args);
      expect(outcome).toMatchObject({ stdout: '', exitCode: 2 });
      expect(outcome.stderr).toContain('Usage: gatehouse keys generate');
    }
  });

  it.skipIf(!existsSync(bin))('runs as the package binary', async () => {
    const { stdout } = await promisify(execFile)('node', [bin, 'keys', 'generate']);
    expect(JSON.parse(stdout).privateJwk.kid).toMatch(/^[0-9a-f-]{36}$/);
  });
});
