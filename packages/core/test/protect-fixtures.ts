import { hashSecret, kvSessionStore, memoryKeyValueStore } from '@gatehousejs/core/engine';
import { importJWK, SignJWT } from 'jose';
import { basic, ISSUER, issueTokens, type TestOptions, testInstance, testKey } from './fixtures';

/** The issuer's origin. */
export const ORIGIN = new URL(ISSUER).origin;
/** An API URL of the test instance. */
export const API = `${ISSUER}/api/v1/tickets`;
/** An origin listed in `cors.allowedOrigins` of {@link protectInstance}. */
export const ALLOWED = 'https://allowed.example';
/** The origin the `demo-spa` fixture client registered. */
export const CLIENT_ORIGIN = 'http://localhost:5173';

/** A test instance with a session store the test can seed, and `ALLOWED` in `cors.allowedOrigins`. */
export async function protectInstance(overrides: TestOptions = {}) {
  const sessionsKv = memoryKeyValueStore();
  const sessions = kvSessionStore(sessionsKv);
  const t = await testInstance({
    cors: { allowedOrigins: [ALLOWED] },
    ...overrides,
    storage: { kv: sessionsKv, ...overrides.storage },
  });
  /** Seeds an active session for `userId` and returns the `Cookie` header that carries it. */
  const sessionCookie = async (userId = 'user-1') => {
    const id = `session-${crypto.randomUUID()}-${crypto.randomUUID()}`;
    const now = t.clock.now();
    await sessions.createSession({
      idHash: await hashSecret(id),
      userId,
      createdAt: now,
      lastSeenAt: now,
      expiresAt: now + 3_600_000,
    });
    return `gatehouse_session=${id}`;
  };
  /** An OAuth 2.0 access token for user-1 / demo-client with `scope`. */
  const oauthToken = async (scope = 'read write') => (await issueTokens(t, scope)).access_token;
  /** An Auth API access token for user-1. */
  const authApiToken = async () => {
    const response = await t.gatehouse.fetch(
      new Request(`${ISSUER}/auth/v1/token`, {
        method: 'POST',
        headers: { Authorization: basic('demo', 'demo-password') },
      }),
    );
    if (response.status !== 200)
      throw new Error(`auth api token failed: ${response.status} ${await response.text()}`);
    return ((await response.json()) as { access_token: string }).access_token;
  };
  return { ...t, sessions, sessionCookie, oauthToken, authApiToken };
}

/** Signs arbitrary JWTs with the instance's own key, to forge near-miss tokens. */
export async function signWithInstanceKey(
  claims: Record<string, unknown>,
  header: { typ?: string; kid?: string } = {},
): Promise<string> {
  const jwk = await testKey();
  const key = await importJWK(jwk, 'ES256');
  return new SignJWT(claims)
    .setProtectedHeader({
      alg: 'ES256',
      kid: header.kid ?? jwk.kid,
      ...(header.typ === undefined ? {} : { typ: header.typ }),
    })
    .sign(key);
}

/** A JSON POST to the API with extra headers. */
export function apiPost(
  headers: Record<string, string>,
  body: string | null = '{}',
  method = 'POST',
): Request {
  return new Request(API, { method, headers: { 'Content-Type': 'application/json', ...headers }, body });
}
