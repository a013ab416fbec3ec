/**
 * The demo instance every example mounts: one issuer at `http://localhost:<port>/demo`, the seeded
 * clients and user, on the embedded in-memory stores. Not for production: the signing key is
 * ephemeral (tokens die with the process) and the credentials are public.
 */
import {
  createGatehouse,
  type Gatehouse,
  type GatehouseOptions,
  generateKeys,
  hashClientSecret,
  memoryClientStore,
  memoryUserStore,
  type PrivateJwk,
  pbkdf2Hasher,
} from '@gatehouse/core';
import { storageFromEnv } from './storage.js';

export { type DemoStorage, type DemoStoreEngine, storageFromEnv } from './storage.js';

export {
  demoApi,
  readTicketLimit,
  SAMPLE_TICKETS_PER_CALLER,
  sampleTickets,
  TICKET_LIMIT,
  type Ticket,
  type TicketList,
} from './tickets.js';

/** The seeded credentials, printed on start and used by the tests. */
export const DEMO = {
  instancePath: '/demo',
  client: { id: 'demo-client', secret: 'demo-secret' },
  publicClient: { id: 'demo-spa' },
  user: { id: 'user-demo', username: 'demo', password: 'demo-password' },
} as const;

/** Options of {@link createDemo}. */
export interface DemoOptions {
  /** Port the host listens on; part of the issuer and the redirect URI. */
  readonly port: number;
  /** Host name in the issuer. Default `localhost`. */
  readonly host?: string;
  /** Extra allowed CORS origins (the demo reads `GATEHOUSE_ALLOWED_ORIGINS`, comma-separated). */
  readonly allowedOrigins?: readonly string[];
  /** Overrides for the instance options (storage engines, lifetimes, …). */
  readonly overrides?: Partial<GatehouseOptions>;
  /** Where the ephemeral-key warning goes. Default `console.warn`. */
  readonly warn?: (message: string) => void;
}

/** A demo instance and what a host needs to describe it. */
export interface Demo {
  readonly gatehouse: Gatehouse;
  readonly origin: string;
  readonly issuer: string;
  readonly redirectUri: string;
}

/** Allowed origins from `GATEHOUSE_ALLOWED_ORIGINS` (comma-separated), trimmed, empty entries dropped. */
export function allowedOriginsFromEnv(env: Record<string, string | undefined> = process.env): string[] {
  return (env.GATEHOUSE_ALLOWED_ORIGINS ?? '')
    .split(',')
    .map((origin) => origin.trim())
    .filter(Boolean);
}

/**
 * The signing key from `GATEHOUSE_SIGNING_KEY` (a private JWK as JSON, e.g. the output of
 * `generateKeys()`), so that several demo processes sharing a storage engine verify each other's
 * tokens; otherwise an ephemeral key, with a warning.
 */
async function signingKeysFromEnv(warn: (message: string) => void): Promise<PrivateJwk[]> {
  const configured = process.env.GATEHOUSE_SIGNING_KEY;
  if (configured) return [JSON.parse(configured) as PrivateJwk];
  warn(
    'gatehouse demo: using an ephemeral signing key; tokens stop verifying when the process restarts. Set GATEHOUSE_SIGNING_KEY (a private JWK from generateKeys()) to keep one.',
  );
  return [await generateKeys()];
}

/** Creates the demo instance with its seeded client, public client and user. */
export async function createDemo(options: DemoOptions): Promise<Demo> {
  const origin = `http://${options.host ?? 'localhost'}:${options.port}`;
  const issuer = origin + DEMO.instancePath;
  const redirectUri = `${origin}/callback`;
  // A moderate PBKDF2 cost keeps the demo responsive; production hosts keep the default (600,000).
  const hasher = pbkdf2Hasher({ iterations: 100_000 });
  const keys = options.overrides?.keys ?? (await signingKeysFromEnv(options.warn ?? console.warn));
  // `GATEHOUSE_STORE` picks the engine (memory by default) unless the caller passes its own stores.
  const storage = options.overrides?.storage ?? (await storageFromEnv());
  const gatehouse = createGatehouse({
    issuer,
    keys,
    clients: memoryClientStore([
      {
        id: DEMO.client.id,
        name: 'Demo Client',
        type: 'confidential',
        secretHash: await hashClientSecret(DEMO.client.secret),
        redirectUris: [redirectUri],
        firstParty: true,
      },
      {
        id: DEMO.publicClient.id,
        name: 'Demo SPA',
        type: 'public',
        redirectUris: [redirectUri],
        firstParty: true,
        allowedOrigins: [origin],
      },
    ]),
    users: memoryUserStore(
      [
        {
          id: DEMO.user.id,
          username: DEMO.user.username,
          passwordHash: await hasher.hash(DEMO.user.password),
          claims: { name: 'Demo User', preferred_username: DEMO.user.username },
        },
      ],
      { hasher },
    ),
    scopes: ['openid', 'profile', 'tickets:read', 'offline_access'],
    cors: { allowedOrigins: options.allowedOrigins ?? [] },
    storage,
    ...options.overrides,
  });
  await gatehouse.ready();
  return { gatehouse, origin, issuer, redirectUri };
}

/** The lines a demo server prints on start. */
export function describeDemo(demo: Demo): string {
  return [
    `Gatehouse demo instance: ${demo.issuer}`,
    `  metadata:       ${demo.issuer}/.well-known/oauth-authorization-server`,
    `  OAuth client:   ${DEMO.client.id} / ${DEMO.client.secret} (confidential), ${DEMO.publicClient.id} (public, PKCE)`,
    `  redirect URI:   ${demo.redirectUri}`,
    `  user:           ${DEMO.user.username} / ${DEMO.user.password}`,
    `  tickets API:    POST ${demo.issuer}/api/v1/tickets (bearer or session)`,
  ].join('\n');
}
