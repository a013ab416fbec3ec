/**
 * The cost of DPoP at a resource server (RFC 9449 §7), in process (tinybench): `authenticate()` of
 * the same access token presented as a bearer token (cached) and as a DPoP-bound token with a
 * fresh proof per request (the token cached, the proof checked in full: signature, claims, `ath`,
 * single-use `jti` in the memory replay store), next to jose's verification of one proof alone
 * (the floor: a proof is single use, so its signature check cannot be cached).
 * Proofs are signed before the measurement (one per iteration, never reused).
 * Run: `node --import tsx bench/micro/dpop.bench.mjs` (from the repository root).
 */
const { calculateJwkThumbprint, exportJWK, generateKeyPair, importJWK, jwtVerify, SignJWT } = await import(
  '../../packages/core/node_modules/jose/dist/webapi/index.js'
);

import { Bench } from 'tinybench';
import { hashSecret, memoryGrantStore } from '../../packages/core/src/engine/index.ts';
import {
  createGatehouse,
  generateKeys,
  memoryClientStore,
  memoryUserStore,
  pbkdf2Hasher,
} from '../../packages/core/src/index.ts';
import { printTable } from './table.mjs';

const ISSUER = 'http://127.0.0.1:3000/demo';
const API = `${ISSUER}/api/v1/things`;
const grants = memoryGrantStore();
const gatehouse = createGatehouse({
  issuer: ISSUER,
  keys: [await generateKeys('ES256')],
  clients: memoryClientStore([
    {
      id: 'demo-client',
      type: 'confidential',
      secretHash: await hashSecret('demo-secret'),
      redirectUris: [`${ISSUER}/cb`],
    },
  ]),
  users: memoryUserStore([], { hasher: pbkdf2Hasher({ iterations: 1000 }) }),
  storage: { grants },
  logger: { warn() {}, error() {} },
});
await gatehouse.ready();

const { privateKey, publicKey } = await generateKeyPair('ES256');
const jwk = await exportJWK(publicKey);
const sha256 = async (text) =>
  Buffer.from(await crypto.subtle.digest('SHA-256', new TextEncoder().encode(text))).toString('base64url');
const proof = (htm, htu, claims = {}) =>
  new SignJWT({ htm, htu, jti: crypto.randomUUID(), ...claims })
    .setProtectedHeader({ alg: 'ES256', typ: 'dpop+jwt', jwk })
    .setIssuedAt()
    .sign(privateKey);

/** An access token through the public token endpoint, DPoP-bound when `bound`. */
async function mint(bound) {
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
        ...(bound ? { dpop: await proof('POST', `${ISSUER}/oauth2/v1/token`) } : {}),
      },
      body: `grant_type=authorization_code&code=${code}&redirect_uri=${encodeURIComponent(`${ISSUER}/cb`)}`,
    }),
  );
  if (response.status !== 200) throw new Error(`mint failed: ${response.status} ${await response.text()}`);
  return (await response.json()).access_token;
}

const bearerToken = await mint(false);
const boundToken = await mint(true);
const ath = await sha256(boundToken);
const POOL = Number(process.env.DPOP_BENCH_PROOFS ?? 40_000);
const proofs = [];
for (let i = 0; i < POOL; i++) proofs.push(await proof('GET', API, { ath }));
let next = 0;
const schemes = { schemes: ['bearer'] };
const importedKey = await importJWK(jwk, 'ES256');
let refused = 0;

const bench = new Bench({ time: 1500, warmupTime: 300 });
bench
  .add('authenticate(): Bearer, cached token', async () => {
    const result = await gatehouse.authenticate(
      new Request(API, { headers: { authorization: `Bearer ${bearerToken}` } }),
      schemes,
    );
    if (!result.ok) refused++;
  })
  .add('authenticate(): DPoP, cached token, fresh proof', async () => {
    const dpop = proofs[next++];
    if (dpop === undefined) throw new Error('the proof pool ran dry: raise DPOP_BENCH_PROOFS');
    const result = await gatehouse.authenticate(
      new Request(API, { headers: { authorization: `DPoP ${boundToken}`, dpop } }),
      schemes,
    );
    if (!result.ok) refused++;
  })
  .add('jose jwtVerify of one proof (the floor)', async () => {
    await jwtVerify(proofs[0], importedKey, { algorithms: ['ES256'], typ: 'dpop+jwt' });
  })
  .add('jose calculateJwkThumbprint (cached by Gatehouse)', async () => {
    await calculateJwkThumbprint(jwk);
  });

await bench.run();
printTable('DPoP at a resource server', bench);
console.log(`\nproofs used: ${next} of ${POOL}; refused: ${refused} (must be 0)`);
