/**
 * A Next.js app's own sign-in, used by its OpenID Provider (issue 29, item 6): the app has its own
 * users, its own session cookie (`app_session`) and its own sign-in page (`/login`, App Router, a
 * server action); Gatehouse at `/accounts` (issuer `http://localhost:<PORT>/accounts`) never shows
 * a login page of its own. Kept on `globalThis` like the demo host: Next.js bundles each route
 * separately. Demo only: users and sessions in memory, public credentials.
 */
import {
  createGatehouse,
  type Gatehouse,
  generateKeys,
  hashClientSecret,
  memoryClientStore,
  pbkdf2Hasher,
} from '@gatehousejs/core';
import type { HostUser } from '@gatehousejs/core/ui';

/** The seeded credentials (used by the conformance tests). */
export const ACCOUNTS = {
  instancePath: '/accounts',
  client: { id: 'accounts-client', secret: 'accounts-secret' },
  user: { id: 'grace', email: 'grace@example.com', password: 'grace-password', name: 'Grace Hopper' },
  sessionCookie: 'app_session',
} as const;

interface AppSession {
  readonly sub: string;
  readonly authTime: number;
}

/** The app's sign-in state and its authorization server. */
export interface Accounts {
  readonly gatehouse: Gatehouse;
  /** The user of an email and password, or `null` (as long for unknown emails as for wrong passwords). */
  checkPassword(email: string, password: string): Promise<string | null>;
  /** Starts an app session; returns the cookie value. */
  startSession(sub: string, authTime: number): string;
  /** The app's signed-in user of a cookie header. */
  currentUser(cookieHeader: string | null): HostUser | null;
}

const KEY = Symbol.for('gatehouse.example-next.accounts');
type Holder = { [KEY]?: Promise<Accounts> };

/** The process's accounts (created on first use: the issuer depends on PORT). */
export function getAccounts(): Promise<Accounts> {
  const holder = globalThis as Holder;
  holder[KEY] ??= createAccounts(`http://localhost:${process.env.PORT ?? 3000}`);
  return holder[KEY];
}

async function createAccounts(origin: string): Promise<Accounts> {
  const hasher = pbkdf2Hasher({ iterations: 10_000 });
  const passwordHash = await hasher.hash(ACCOUNTS.user.password);
  const dummyHash = await hasher.hash('dummy');
  const sessions = new Map<string, AppSession>();

  const currentUser = (cookieHeader: string | null): HostUser | null => {
    const id = (cookieHeader ?? '')
      .split(';')
      .map((part) => part.trim().split('='))
      .find(([name]) => name === ACCOUNTS.sessionCookie)?.[1];
    const session = id === undefined ? undefined : sessions.get(id);
    return session ? { sub: session.sub, authTime: session.authTime, amr: ['pwd'] } : null;
  };

  const gatehouse = createGatehouse({
    issuer: origin + ACCOUNTS.instancePath,
    keys: [await generateKeys('ES256'), await generateKeys('RS256')],
    // Keys of this process only (tokens die with it), on purpose: `next start` runs in production mode.
    allowEphemeralKeys: true,
    clients: memoryClientStore([
      {
        id: ACCOUNTS.client.id,
        name: 'Accounts Client',
        type: 'confidential',
        secretHash: await hashClientSecret(ACCOUNTS.client.secret),
        redirectUris: [`${origin}/callback`],
        firstParty: true,
      },
    ]),
    users: {
      async findUser(id) {
        return id === ACCOUNTS.user.id
          ? {
              id,
              username: ACCOUNTS.user.email,
              claims: { name: ACCOUNTS.user.name, email: ACCOUNTS.user.email },
            }
          : null;
      },
    },
    scopes: ['openid', 'profile', 'email'],
    authApi: { enabled: false },
    interactions: { url: '/login', currentUser: (request) => currentUser(request.headers.get('cookie')) },
  });
  await gatehouse.ready();
  return {
    gatehouse,
    async checkPassword(email, password) {
      const known = email.toLowerCase() === ACCOUNTS.user.email;
      const ok = await hasher.verify(password, known ? passwordHash : dummyHash);
      return known && ok ? ACCOUNTS.user.id : null;
    },
    startSession(sub, authTime) {
      const bytes = crypto.getRandomValues(new Uint8Array(32));
      const id = Buffer.from(bytes).toString('base64url');
      sessions.set(id, { sub, authTime });
      return id;
    },
    currentUser,
  };
}
