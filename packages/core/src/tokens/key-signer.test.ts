import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { ConfigurationError, generateKeys, type KeySigner, type PrivateJwk } from '@gatehousejs/core';
import { createLocalJWKSet, decodeProtectedHeader, jwtVerify } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { basic, ISSUER, issueTokens, post, testInstance } from '../../test/fixtures';

/**
 * A signing service in another process (as a KMS would be): it holds the private key, listens on
 * 127.0.0.1 and signs what it is sent. The instance gets only its public key.
 */
const SIGNER_PROCESS = `
const http = require('node:http');
const crypto = require('node:crypto');
const key = crypto.createPrivateKey({ key: JSON.parse(process.env.SIGNER_JWK), format: 'jwk' });
let count = 0;
http.createServer((req, res) => {
  let body = '';
  req.on('data', (c) => (body += c));
  req.on('end', () => {
    const { algorithm, data } = JSON.parse(body);
    if (algorithm !== 'ES256') { res.writeHead(400).end(); return; }
    count++;
    const signature = crypto.sign('sha256', Buffer.from(data, 'base64url'), { key, dsaEncoding: 'ieee-p1363' });
    res.writeHead(200, { 'content-type': 'application/json', 'x-count': String(count) });
    res.end(JSON.stringify({ signature: signature.toString('base64url') }));
  });
}).listen(0, '127.0.0.1', function () { process.stdout.write(this.address().port + '\\n'); });
`;

let child: ChildProcess;
let url: string;
let publicJwk: PrivateJwk;
const calls: string[] = [];

/** A KeySigner calling the signing process over HTTP. */
function httpSigner(endpoint = () => url): KeySigner {
  return {
    publicJwk,
    async sign(algorithm, data) {
      calls.push(algorithm);
      const response = await fetch(endpoint(), {
        method: 'POST',
        body: JSON.stringify({ algorithm, data: Buffer.from(data).toString('base64url') }),
      });
      if (!response.ok) throw new Error(`signer answered ${response.status}`);
      const { signature } = (await response.json()) as { signature: string };
      return new Uint8Array(Buffer.from(signature, 'base64url'));
    },
  };
}

beforeAll(async () => {
  const privateJwk = await generateKeys('ES256');
  const { d: _d, ...rest } = privateJwk;
  publicJwk = rest as PrivateJwk;
  child = spawn(process.execPath, ['-e', SIGNER_PROCESS], {
    env: { ...process.env, SIGNER_JWK: JSON.stringify(privateJwk) },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const [chunk] = (await once(child.stdout!, 'data')) as [Buffer];
  url = `http://127.0.0.1:${chunk.toString().trim()}/`;
});
afterAll(() => {
  child?.kill();
});

describe('remote signing (signers option)', () => {
  it('signs access tokens in the other process; they verify against the published JWKS', async () => {
    const rsa = await generateKeys('RS256');
    const t = await testInstance({ keys: [rsa], signers: [httpSigner()] });
    calls.length = 0;
    const { access_token } = await issueTokens(t);
    expect(calls).toEqual(['ES256']);
    expect(decodeProtectedHeader(access_token).kid).toBe(publicJwk.kid);
    const jwks = (await (await t.gatehouse.fetch(new Request(`${ISSUER}/oauth2/v1/keys`))).json()) as {
      keys: Record<string, unknown>[];
    };
    expect(jwks.keys[0]).toMatchObject({ kid: publicJwk.kid, alg: 'ES256', use: 'sig' });
    expect(jwks.keys.every((k) => !('d' in k))).toBe(true);
    const { payload } = await jwtVerify(access_token, createLocalJWKSet(jwks as never), {
      issuer: ISSUER,
      currentDate: new Date(t.clock.now()),
    });
    expect(payload.sub).toBe('user-1');
    // And the instance accepts its own token (introspection checks the signature with the public key).
    const introspected = await t.gatehouse.fetch(
      post(
        '/oauth2/v1/introspect',
        { token: access_token },
        { Authorization: basic('demo-client', 'demo-secret') },
      ),
    );
    expect(await introspected.json()).toMatchObject({ active: true, sub: 'user-1' });
  });

  it('answers 503 temporarily_unavailable when the signer is down, and logs why', async () => {
    const errors: unknown[][] = [];
    const t = await testInstance({
      keys: [],
      signers: [httpSigner(() => 'http://127.0.0.1:1/')],
      logger: { warn() {}, error: (...a) => void errors.push(a) },
    });
    const response = await t.gatehouse.fetch(
      post('/auth/v1/token', '', { Authorization: `Basic ${btoa('demo:demo-password')}` }),
    );
    expect(response.status).toBe(503);
    expect(await response.json()).toMatchObject({ error: 'temporarily_unavailable' });
    expect(errors).toHaveLength(1);
  });

  it('refuses a signer whose ES256 signature is not the raw 64 bytes (a DER one)', async () => {
    const t = await testInstance({
      keys: [],
      signers: [{ publicJwk, sign: async () => new Uint8Array(71) }],
      logger: { warn() {}, error() {} },
    });
    const response = await t.gatehouse.fetch(
      post('/auth/v1/token', '', { Authorization: `Basic ${btoa('demo:demo-password')}` }),
    );
    expect(response.status).toBe(503);
  });

  it('refuses signers whose public key is private, has no kid, or doubles an algorithm', async () => {
    const privateJwk = await generateKeys('ES256');
    const sign = async () => new Uint8Array(64);
    await expect(testInstance({ signers: [{ publicJwk: privateJwk, sign }] })).rejects.toThrow(
      /^signers\[0\] .*private member "d"/,
    );
    await expect(testInstance({ signers: [{ publicJwk: { ...publicJwk, kid: '' }, sign }] })).rejects.toThrow(
      ConfigurationError,
    );
    await expect(
      testInstance({
        signers: [
          { publicJwk, sign },
          { publicJwk: { ...publicJwk, kid: 'other' }, sign },
        ],
      }),
    ).rejects.toThrow(/^signers\[1\]: a second ES256 signer/);
    await expect(testInstance({ keys: [], signers: [] })).rejects.toThrow(/^keys: /);
  });
});
