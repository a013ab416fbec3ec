import {
  type ClientRecord,
  createGatehouse,
  type Gatehouse,
  type GatehouseOptions,
  type GatehouseStorage,
  generateKeys,
  hashClientSecret,
  memoryClientStore,
  memoryUserStore,
  type PrivateJwk,
  pbkdf2Hasher,
  withMemoryFallback,
} from '@gatehousejs/core';
import { hashSecret, memoryGrantStore } from '@gatehousejs/core/engine';

export const ISSUER = 'http://localhost:3000/demo';
export const REDIRECT_URI = 'http://localhost:3000/callback';

/** A controllable clock (epoch ms). */
export function testClock(start = Date.UTC(2026, 0, 1)) {
  let now = start;
  return {
    now: () => now,
    advance(seconds: number) {
      now += seconds * 1000;
    },
  };
}

let sharedKey: Promise<PrivateJwk> | undefined;
/** One ES256 key for the whole test run (generation is the slow part). */
export function testKey(): Promise<PrivateJwk> {
  sharedKey ??= generateKeys('ES256');
  return sharedKey;
}

/** Cheap hashing for tests; production defaults are deliberately slow. */
export const testHasher = pbkdf2Hasher({ iterations: 1000 });

export async function testClients(): Promise<ClientRecord[]> {
  return [
    {
      id: 'demo-client',
      name: 'Demo Client',
      type: 'confidential',
      secretHash: await hashClientSecret('demo-secret'),
      redirectUris: [REDIRECT_URI],
      firstParty: true,
    },
    {
      id: 'other-client',
      type: 'confidential',
      secretHash: await hashClientSecret('other-secret'),
      redirectUris: [REDIRECT_URI],
    },
    {
      id: 'demo-spa',
      type: 'public',
      redirectUris: [REDIRECT_URI],
      firstParty: true,
      allowedOrigins: ['http://localhost:5173'],
    },
    {
      id: 'code-only',
      type: 'confidential',
      secretHash: await hashClientSecret('code-secret'),
      redirectUris: [REDIRECT_URI],
      grantTypes: ['authorization_code'],
    },
  ];
}

/**
 * Options of a test instance: any option, and `storage` as some stores only (the rest in memory,
 * through `withMemoryFallback`).
 */
export type TestOptions = Omit<Partial<GatehouseOptions>, 'storage'> & {
  readonly storage?: Partial<GatehouseStorage>;
};

/** A full instance on memory stores with a fake clock, plus handles to poke at it. */
export async function testInstance(overrides: TestOptions = {}) {
  const clock = testClock();
  const grants = memoryGrantStore();
  const users = memoryUserStore(
    [
      {
        id: 'user-1',
        username: 'demo',
        passwordHash: await testHasher.hash('demo-password'),
        claims: { name: 'Demo User' },
      },
    ],
    { hasher: testHasher },
  );
  const gatehouse: Gatehouse = createGatehouse({
    issuer: ISSUER,
    keys: [await testKey()],
    clients: memoryClientStore(await testClients()),
    users,
    now: clock.now,
    logger: { warn() {}, error() {} },
    ...overrides,
    // The test's own stores, the rest in memory (said explicitly: a partial `storage` is refused).
    storage: withMemoryFallback({ grants, ...overrides.storage }),
  });
  await gatehouse.ready();
  return { gatehouse, clock, grants };
}

export type TestInstance = Awaited<ReturnType<typeof testInstance>>;

/** Basic credentials header for a client (RFC 6749 §2.3.1: form-urlencoded, then base64). */
export function basic(id: string, secret: string): string {
  const enc = (s: string) => encodeURIComponent(s).replace(/%20/g, '+');
  return `Basic ${btoa(`${enc(id)}:${enc(secret)}`)}`;
}

/** Basic credentials header for a user (RFC 7617: UTF-8, not form-urlencoded), as the Auth API takes them. */
export function userBasic(username: string, password: string): string {
  const bytes = new TextEncoder().encode(`${username}:${password}`);
  return `Basic ${btoa(String.fromCharCode(...bytes))}`;
}

/** Obtains an Auth API token (`POST /auth/v1/token`) for the demo user. */
export async function authApiToken(
  t: TestInstance,
  username = 'demo',
  password = 'demo-password',
): Promise<string> {
  const response = await t.gatehouse.fetch(
    new Request(`${ISSUER}/auth/v1/token`, {
      method: 'POST',
      headers: { Authorization: userBasic(username, password) },
    }),
  );
  if (response.status !== 200)
    throw new Error(`Auth API token failed: ${response.status} ${await response.text()}`);
  return ((await response.json()) as { access_token: string }).access_token;
}

/** A POST without a body to a path below the issuer, presenting `token` as the bearer. */
export function bearerPost(path: string, token: string): Request {
  return new Request(ISSUER + path, { method: 'POST', headers: { Authorization: `Bearer ${token}` } });
}

/** A POST with a form body to a path below the issuer. */
export function post(
  path: string,
  form: Record<string, string> | string,
  headers: Record<string, string> = {},
): Request {
  const body = typeof form === 'string' ? form : new URLSearchParams(form).toString();
  return new Request(ISSUER + path, {
    method: 'POST',
    headers: { 'Content-Type': 'application/x-www-form-urlencoded', ...headers },
    body,
  });
}

export const PKCE_VERIFIER = 'dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk';
export const PKCE_CHALLENGE = 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM';

/**
 * Mints an authorization code through the public storage API (what the authorize endpoint does
 * after login and consent).
 */
export async function mintCode(
  t: TestInstance,
  options: {
    clientId?: string;
    userId?: string;
    scope?: string;
    codeChallenge?: string | null;
    redirectUri?: string;
    /** The grant's resources (RFC 8707), the access tokens' `aud`. */
    audience?: readonly string[];
  } = {},
): Promise<string> {
  const code = `code-${crypto.randomUUID()}-${crypto.randomUUID()}`;
  const now = t.clock.now();
  await t.grants.saveCode({
    codeHash: await hashSecret(code),
    clientId: options.clientId ?? 'demo-client',
    userId: options.userId ?? 'user-1',
    grantId: crypto.randomUUID(),
    redirectUri: options.redirectUri ?? REDIRECT_URI,
    scope: options.scope ?? 'read write',
    ...(options.codeChallenge === null ? {} : { codeChallenge: options.codeChallenge ?? PKCE_CHALLENGE }),
    ...(options.audience === undefined ? {} : { audience: options.audience }),
    authTime: now,
    expiresAt: now + 60_000,
  });
  return code;
}

/** Redeems a fresh code for demo-client and returns the token set. */
export async function issueTokens(t: TestInstance, scope = 'read write', userId = 'user-1') {
  const code = await mintCode(t, { scope, userId });
  const response = await t.gatehouse.fetch(
    post(
      '/oauth2/v1/token',
      { grant_type: 'authorization_code', code, redirect_uri: REDIRECT_URI, code_verifier: PKCE_VERIFIER },
      { Authorization: basic('demo-client', 'demo-secret') },
    ),
  );
  if (response.status !== 200)
    throw new Error(`token exchange failed: ${response.status} ${await response.text()}`);
  return (await response.json()) as {
    access_token: string;
    refresh_token: string;
    expires_in: number;
    scope: string;
  };
}
