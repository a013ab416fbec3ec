/**
 * The Edge-runtime proof instance (`/edge`): the smallest Gatehouse that runs where Node.js does
 * not, importing only `@gatehousejs/core` (never `@gatehousejs/demo`, which reads `process.env` and
 * loads Node-only storage engines). In-memory stores, a signing key generated at first use, one
 * confidential client and one user. Not for production: the credentials are public and tokens die
 * with the isolate.
 */
import {
  createGatehouse,
  type Gatehouse,
  generateKeys,
  hashClientSecret,
  memoryClientStore,
  memoryUserStore,
  pbkdf2Hasher,
} from '@gatehousejs/core';

/** The seeded credentials of the edge instance, used by the conformance tests. */
export const EDGE = {
  instancePath: '/edge',
  client: { id: 'edge-client', secret: 'edge-secret' },
  user: { id: 'user-edge', username: 'edge', password: 'edge-password' },
} as const;

// One instance per isolate: module state lives as long as the Edge sandbox that loaded the route.
let instance: Promise<Gatehouse> | undefined;

/**
 * The isolate's instance, created at the first request. The Edge runtime promises no `process.env`
 * (hence no `PORT`), so the issuer's origin is the first request's; a real host configures its
 * issuer instead of trusting a `Host` header.
 */
export function edgeGatehouse(origin: string): Promise<Gatehouse> {
  instance ??= createEdgeGatehouse(origin + EDGE.instancePath);
  return instance;
}

async function createEdgeGatehouse(issuer: string): Promise<Gatehouse> {
  // A cheap PBKDF2 cost: this instance proves the runtime, it does not guard real passwords.
  const hasher = pbkdf2Hasher({ iterations: 1_000 });
  const gatehouse = createGatehouse({
    issuer,
    keys: [await generateKeys()],
    // A key of this process only (tokens die with it), on purpose: `next start` runs in production mode.
    allowEphemeralKeys: true,
    clients: memoryClientStore([
      {
        id: EDGE.client.id,
        name: 'Edge Client',
        type: 'confidential',
        secretHash: await hashClientSecret(EDGE.client.secret),
        redirectUris: [`${new URL(issuer).origin}/callback`],
        firstParty: true,
      },
    ]),
    users: memoryUserStore(
      [
        {
          id: EDGE.user.id,
          username: EDGE.user.username,
          passwordHash: await hasher.hash(EDGE.user.password),
          claims: { preferred_username: EDGE.user.username },
        },
      ],
      { hasher },
    ),
  });
  await gatehouse.ready();
  return gatehouse;
}
