/**
 * The floor under the token endpoint: the work no token endpoint can skip, written as directly as
 * Node allows, for the bare process of each framework (`bench/server.mjs --bare`, route
 * `POST /bench/token-floor`, workload F2). Per request, what a refresh with rotation must do:
 * - the HTTP request (parsed by the framework) and its form body (read straight from Node's stream,
 *   {@link readForm}, or Fastify's own string parser);
 * - the client's Basic credentials decoded, its secret hashed (SHA-256) and compared in constant
 *   time with the stored hash;
 * - the presented refresh token hashed (SHA-256) and looked up, its successor drawn (32 random
 *   bytes), hashed (SHA-256) and stored in its place (an in-process `Map`);
 * - an access token (a JWT of the usual claims, a 16-byte `jti`) signed with ES256, off the event
 *   loop as Gatehouse signs (`crypto.sign` with a callback);
 * - the JSON answer with `Cache-Control: no-store` (RFC 6749 §5.1).
 * No check that a real server needs beyond these (client record, grant, scope, expiry, revocation,
 * audit, rate limits), so Gatehouse's W2 on the same framework can only be slower: the ratio W2 ÷ F2
 * says how close an adapter is to the floor.
 */
import crypto from 'node:crypto';

const { privateKey } = crypto.generateKeyPairSync('ec', { namedCurve: 'P-256' });
const signOptions = { key: privateKey, dsaEncoding: 'ieee-p1363' };
const sha256 = (text) => crypto.createHash('sha256').update(text).digest();
const CLIENT = { id: 'demo-client', secretHash: sha256('demo-secret') };
const HEADER = Buffer.from(JSON.stringify({ alg: 'ES256', typ: 'at+jwt', kid: 'floor' })).toString(
  'base64url',
);
/** Refresh tokens by the hash of their value: any presented token is taken as live (no expiry kept). */
const refreshTokens = new Map();

/** The floor's answer to one refresh request, or `undefined` for a refused one (400/401). */
export function floorTokenAnswer(authorization, form) {
  if (typeof authorization !== 'string' || !authorization.startsWith('Basic ')) return undefined;
  const decoded = Buffer.from(authorization.slice(6), 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  if (colon < 0 || decoded.slice(0, colon) !== CLIENT.id) return undefined;
  if (!crypto.timingSafeEqual(sha256(decoded.slice(colon + 1)), CLIENT.secretHash)) return undefined;
  if (form.get('grant_type') !== 'refresh_token') return undefined;
  const presented = form.get('refresh_token');
  if (!presented) return undefined;
  refreshTokens.delete(sha256(presented).toString('base64url'));
  const next = crypto.randomBytes(32).toString('base64url');
  refreshTokens.set(sha256(next).toString('base64url'), CLIENT.id);
  if (refreshTokens.size > 100_000) refreshTokens.clear();
  const now = Math.floor(Date.now() / 1000);
  const payload = Buffer.from(
    JSON.stringify({
      iss: 'http://localhost:3000/demo',
      sub: 'user-demo',
      aud: 'http://localhost:3000/demo',
      client_id: CLIENT.id,
      scope: 'api:read offline_access',
      iat: now,
      exp: now + 600,
      jti: crypto.randomBytes(16).toString('base64url'),
    }),
  ).toString('base64url');
  const signingInput = `${HEADER}.${payload}`;
  if (process.env.FLOOR_SYNC === '1') {
    const signature = crypto.sign('sha256', Buffer.from(signingInput), signOptions);
    return Promise.resolve(
      JSON.stringify({
        access_token: `${signingInput}.${signature.toString('base64url')}`,
        token_type: 'Bearer',
        expires_in: 600,
        refresh_token: next,
        scope: 'api:read offline_access',
      }),
    );
  }
  return new Promise((resolve, reject) => {
    crypto.sign('sha256', Buffer.from(signingInput), signOptions, (error, signature) => {
      if (error) return reject(error);
      resolve(
        JSON.stringify({
          access_token: `${signingInput}.${signature.toString('base64url')}`,
          token_type: 'Bearer',
          expires_in: 600,
          refresh_token: next,
          scope: 'api:read offline_access',
        }),
      );
    });
  });
}

/**
 * The form body of a Node request, read straight from its stream: the cheapest way on every
 * framework (Express's `urlencoded` parser and Hono's `parseBody` cost more than the work below).
 */
export async function readForm(incoming) {
  const chunks = [];
  for await (const chunk of incoming) chunks.push(chunk);
  return new URLSearchParams(chunks.length === 1 ? chunks[0].toString() : Buffer.concat(chunks).toString());
}

/** The headers of the floor's answer (RFC 6749 §5.1). */
export const FLOOR_HEADERS = {
  'content-type': 'application/json',
  'cache-control': 'no-store',
  pragma: 'no-cache',
};
