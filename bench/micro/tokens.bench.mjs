/**
 * In-process micro benchmarks (tinybench) of the hot paths, next to jose's own cost:
 *   - `gatehouse.authenticate()` of a bearer token, cached (the same token again) and uncached
 *     (a pool of distinct tokens larger than the cache, visited in order, so every call misses);
 *   - access-token signing and verification against jose's `SignJWT` / `jwtVerify`;
 *   - SHA-256 of a secret (`hashSecret`) against Web Crypto's digest.
 * Run: `node --import tsx bench/micro/tokens.bench.mjs` (from the repository root; the internals are
 * loaded from source, the same code the build ships).
 */
// jose is a dependency of the core package, not of the repository root: load the core's copy.
const { jwtVerify, SignJWT } = await import('../../packages/core/node_modules/jose/dist/webapi/index.js');

import { Bench } from 'tinybench';
import { hashSecret, memoryGrantStore } from '../../packages/core/src/engine/index.ts';
import {
  createGatehouse,
  generateKeys,
  memoryClientStore,
  memoryUserStore,
  pbkdf2Hasher,
  withMemoryFallback,
} from '../../packages/core/src/index.ts';
import { BufferedRequest } from '../../packages/core/src/node/buffered-request.ts';
import { RawHeaders } from '../../packages/core/src/node/raw-headers.ts';
import { resolveOptions, toContext } from '../../packages/core/src/resolve-options.ts';
import { signAccessToken, verifyAccessTokenSignature } from '../../packages/core/src/tokens/access-token.ts';
import { importKeySet } from '../../packages/core/src/tokens/keys.ts';
import { DEFAULT_VERIFIED_TOKEN_CACHE_SIZE } from '../../packages/core/src/tokens/verified-token-cache.ts';
import { printTable } from './table.mjs';

const ISSUER = 'http://127.0.0.1:3000/demo';
const key = await generateKeys('ES256');
const grants = memoryGrantStore();
const options = {
  issuer: ISSUER,
  keys: [key],
  clients: memoryClientStore([
    {
      id: 'demo-client',
      type: 'confidential',
      secretHash: await hashSecret('demo-secret'),
      redirectUris: [`${ISSUER}/cb`],
    },
  ]),
  users: memoryUserStore([], { hasher: pbkdf2Hasher({ iterations: 1000 }) }),
  storage: withMemoryFallback({ grants }),
  logger: { warn() {}, error() {} },
};
const gatehouse = createGatehouse(options);
await gatehouse.ready();
const ctx = toContext(resolveOptions(options), await importKeySet([key], 'ES256'));

const grant = {
  family: 'oauth2',
  subject: { kind: 'user', userId: 'user-1' },
  clientId: 'demo-client',
  scope: 'openid tickets:read',
  grantId: crypto.randomUUID(),
  ttl: 3600,
};

/** Access tokens minted through the public token endpoint (codes saved via the storage API). */
async function mintTokens(count) {
  const tokens = [];
  for (let i = 0; i < count; i++) {
    const code = `code-${crypto.randomUUID()}`;
    await grants.saveCode({
      codeHash: await hashSecret(code),
      clientId: 'demo-client',
      userId: 'user-1',
      grantId: crypto.randomUUID(),
      redirectUri: `${ISSUER}/cb`,
      scope: 'openid',
      authTime: Date.now(),
      expiresAt: Date.now() + 600_000,
    });
    const response = await gatehouse.fetch(
      new Request(`${ISSUER}/oauth2/v1/token`, {
        method: 'POST',
        headers: {
          'content-type': 'application/x-www-form-urlencoded',
          authorization: `Basic ${btoa('demo-client:demo-secret')}`,
        },
        body: `grant_type=authorization_code&code=${code}&redirect_uri=${encodeURIComponent(`${ISSUER}/cb`)}`,
      }),
    );
    if (response.status !== 200) throw new Error(`mint failed: ${response.status} ${await response.text()}`);
    tokens.push((await response.json()).access_token);
  }
  return tokens;
}

const pool = await mintTokens(DEFAULT_VERIFIED_TOKEN_CACHE_SIZE + 2000);
const [hot] = pool;
let cursor = 0;
const bearer = (token) =>
  new Request(`${ISSUER}/api/v1/things`, { headers: { authorization: `Bearer ${token}` } });
/** What the Node adapters pass: the bridge's request over Node's raw header list. */
const bridged = (token) =>
  new BufferedRequest(
    'GET',
    `${ISSUER}/api/v1/things`,
    new RawHeaders(['Authorization', `Bearer ${token}`]),
    null,
  );
const schemes = { schemes: ['bearer'] };
const signed = (await signAccessToken(ctx, grant)).token;
const publicKey = [...ctx.keys.verificationKeys.values()][0];

const bench = new Bench({ time: 1500, warmupTime: 300 });
bench
  .add('authenticate(): bearer, cached token', async () => {
    const result = await gatehouse.authenticate(bearer(hot), schemes);
    if (!result.ok) throw new Error('refused');
  })
  .add('authenticate(): bearer, cached token, Node bridge request (BufferedRequest)', async () => {
    const result = await gatehouse.authenticate(bridged(hot), schemes);
    if (!result.ok) throw new Error('refused');
  })
  .add('authenticate(): bearer, uncached token', async () => {
    const result = await gatehouse.authenticate(bearer(pool[cursor++ % pool.length]), schemes);
    if (!result.ok) throw new Error('refused');
  })
  .add('new Request() with a bearer header (part of both above)', () => {
    bearer(hot);
  })
  .add('verifyAccessTokenSignature, uncached (jose jwtVerify inside)', async () => {
    ctx.verifiedTokens.clear();
    if (!(await verifyAccessTokenSignature(ctx, signed))) throw new Error('invalid');
  })
  .add('jose jwtVerify (reference)', async () => {
    await jwtVerify(signed, publicKey, { algorithms: ['ES256'], typ: 'at+jwt' });
  })
  .add('signAccessToken (ES256)', async () => {
    await signAccessToken(ctx, grant);
  })
  .add('jose SignJWT (ES256, reference)', async () => {
    await new SignJWT({
      token_family: 'oauth2',
      scope: grant.scope,
      client_id: 'demo-client',
      gid: grant.grantId,
    })
      .setProtectedHeader({ alg: 'ES256', typ: 'at+jwt', kid: key.kid })
      .setIssuer(ISSUER)
      .setSubject('user-1')
      .setAudience(`${ISSUER}/api/v1`)
      .setIssuedAt()
      .setExpirationTime('1h')
      .setJti(crypto.randomUUID())
      .sign(ctx.keys.signingKey);
  })
  .add('hashSecret (SHA-256 of a 43-char secret)', async () => {
    await hashSecret('TdBIFCDXCWCqYV82sn4W8ksTIkcP8B252qhivk1Eisc');
  })
  .add('crypto.subtle.digest SHA-256 (reference)', async () => {
    await crypto.subtle.digest(
      'SHA-256',
      new TextEncoder().encode('TdBIFCDXCWCqYV82sn4W8ksTIkcP8B252qhivk1Eisc'),
    );
  });

await bench.run();
printTable('tokens', bench);
