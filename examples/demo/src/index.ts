/**
 * The demo instance every example mounts: one issuer at `http://localhost:<port>/demo`, the seeded
 * clients and user, on the embedded in-memory stores. Not for production: the signing key is
 * ephemeral (tokens die with the process) and the credentials are public.
 */
import {
  CIBA_GRANT,
  createGatehouse,
  createGatehouseHost,
  DEVICE_CODE_GRANT,
  type Gatehouse,
  type GatehouseHost,
  type GatehouseOptions,
  generateKeys,
  type HostedInstanceOptions,
  hashClientSecret,
  JWT_BEARER_GRANT,
  type KeyRotationOptions,
  memoryClientStore,
  memoryUserStore,
  type PrivateJwk,
  pbkdf2Hasher,
  type StorageEngine,
  TOKEN_EXCHANGE_GRANT,
  TOKEN_TYPES,
  type TokenExchangeOptions,
  type TrustedIssuerOptions,
} from '@gatehousejs/core';
import { createPortal, PORTAL, type Portal } from './portal.js';
import { DEMO_SCOPE_DESCRIPTIONS } from './scopes.js';
import { engineFromEnv, storageFromEnv } from './storage.js';
import { TICKET_ACCESS, TICKET_ACCESS_TYPE } from './tickets.js';

export { createPortal, PORTAL, type Portal, type PortalOptions } from './portal.js';
export { DEMO_SCOPE_DESCRIPTIONS } from './scopes.js';

export {
  type DemoEngine,
  type DemoStorage,
  type DemoStoreEngine,
  engineFromEnv,
  storageFromEnv,
} from './storage.js';

export {
  type CreatedTicket,
  demoApi,
  readTicketLimit,
  readTicketTitle,
  SAMPLE_TICKETS_PER_CALLER,
  sampleTickets,
  TICKET_ACCESS,
  TICKET_ACCESS_TYPE,
  TICKET_ACTIONS,
  TICKET_LIMIT,
  type Ticket,
  type TicketAccess,
  type TicketList,
} from './tickets.js';

/** The seeded credentials, printed on start and used by the tests. */
export const DEMO = {
  instancePath: '/demo',
  client: { id: 'demo-client', secret: 'demo-secret' },
  publicClient: { id: 'demo-spa' },
  /**
   * A confidential client (`client_secret_basic`, first-party, the scopes of `demo-client`) that
   * must push its authorization requests (RFC 9126 `require_pushed_authorization_requests`).
   */
  parClient: { id: 'demo-par', secret: 'demo-par-secret' },
  /** A third-party relying party (not first-party): it gets the consent page. */
  thirdPartyClient: { id: 'demo-third-party', secret: 'demo-third-party-secret' },
  /** A confidential client sending its secret in the body (`client_secret_post`, RFC 6749 §2.3.1). */
  postClient: { id: 'demo-post', secret: 'demo-post-secret' },
  /** A backend acting for itself: `client_credentials` only, Basic authentication, `tickets:read`. */
  serviceClient: { id: 'demo-service', secret: 'demo-service-secret', scope: 'tickets:read' },
  /**
   * A resource server's own client (RFC 7662 token introspection): `client_secret_basic`, no grant
   * of its own, and `introspects` the instance's API audience (`{issuer}/api/v1`), so that an API
   * in another service asks the instance about the tokens presented to it.
   */
  resourceServerClient: { id: 'demo-rs', secret: 'demo-rs-secret' },
  /**
   * A command-line tool signing in with the device authorization grant (RFC 8628): public
   * (`token_endpoint_auth_method: none`), device code and refresh token grants (`examples/cli`).
   */
  cliClient: { id: 'demo-cli', scope: 'openid profile offline_access tickets:read' },
  /**
   * A confidential client authenticating with `private_key_jwt` (ES256), which may also send
   * signed request objects (RFC 9101, `request` by value or pushed) signed with that key. Its private key is
   * committed at `examples/demo/keys/demo-jwt.private.jwk.json`: a demo key, public to everyone,
   * never a pattern (a real client keeps its private key to itself and registers the public one).
   */
  jwtClient: {
    id: 'demo-jwt',
    privateKeyPath: 'examples/demo/keys/demo-jwt.private.jwk.json',
    publicJwk: {
      kty: 'EC',
      crv: 'P-256',
      x: '0RgEQm1Qrg9OZJ-0IKO2kVaMhGPNgvhdWBzH_TR05PA',
      y: 'i_dTRrws4O61zZFDxi76SKJ47Gjy6v8deuF0peNiC18',
      kid: 'demo-jwt-2026',
      alg: 'ES256',
      use: 'sig',
    },
  },
  /**
   * An agent acting for the demo user (RFC 8693 token exchange): it trades a `demo` user's access
   * token (with `tickets:read`) for one whose audience is the MCP server, carrying
   * `act.sub = "demo-agent"`. Client credentials give it a token of its own, which it may present as
   * the `actor_token`.
   */
  agentClient: { id: 'demo-agent', secret: 'demo-agent-secret', scope: 'tickets:read' },
  /**
   * The enterprise-managed authorization profile of MCP (ID-JAG), on the demo host: `acme` is the
   * enterprise identity provider, `demo` the MCP server's authorization server. This client signs
   * the user in at `acme` (an ID token), exchanges the ID token there for an ID-JAG for `demo`
   * (`requested_token_type=urn:ietf:params:oauth:token-type:id-jag`, `audience` = the `demo`
   * issuer, `resource` = the MCP server), and redeems it at `demo` with the JWT bearer grant.
   */
  enterpriseClient: {
    id: 'demo-enterprise',
    secret: 'demo-enterprise-secret',
    scope: 'tickets:read',
  },
  /**
   * An agent asking the demo user for approval without a browser redirect (OpenID CIBA, poll mode):
   * `client_secret_basic`, the CIBA grant only. `login_hint=demo` names the demo user (the
   * username); the user approves on the approval page `{issuer}/approvals`.
   */
  cibaClient: { id: 'demo-ciba', secret: 'demo-ciba-secret', scope: 'openid profile tickets:read' },
  user: {
    id: 'user-demo',
    username: 'demo',
    password: 'demo-password',
    claims: {
      name: 'Demo User',
      preferred_username: 'demo',
      email: 'demo@example.com',
      email_verified: true,
    },
  },
  scopes: ['openid', 'profile', 'email', 'offline_access', 'tickets:read'],
  /**
   * The admin API of the `demo` instance (`{issuer}/admin/v1/`, docs/admin-api.md): its scope, the
   * one user allowed it (`admin`; the `demo` user is refused) and a client acting for itself with
   * it (`demo-admin`, client credentials). `demo` only: `acme` has no admin API.
   */
  admin: {
    scope: 'gatehouse:admin',
    user: {
      id: 'user-admin',
      username: 'admin',
      password: 'admin-password',
      claims: { name: 'Demo Admin', preferred_username: 'admin' },
    },
    client: { id: 'demo-admin', secret: 'demo-admin-secret' },
  },
  /**
   * The MCP server of the demo host (`examples/mcp`): `{origin}/mcp`, a resource (RFC 8707) of the
   * `demo` instance, whose tool requires `tickets:read`.
   */
  mcp: { path: '/mcp', scope: 'tickets:read' },
} as const;

/** The small page a host answers at `/logged-out`, where the demo clients land after signing out. */
export const LOGGED_OUT_PAGE = `<!doctype html>
<html lang="en">
<head><meta charset="utf-8"><title>Signed out</title></head>
<body>
<h1>Signed out</h1>
<p>You have signed out of the Gatehouse demo. <a href="/">Back to the demo</a></p>
</body>
</html>
`;

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
  /**
   * Where `GATEHOUSE_SIGNING_KEY` and the `GATEHOUSE_STORE` variables are read. Default
   * `process.env`; a Cloudflare Worker, which has no `process` unless `nodejs_compat` is on, passes
   * its bindings.
   */
  readonly env?: Env;
}

type Env = Record<string, string | undefined>;

/** A demo instance and what a host needs to describe it. */
export interface Demo {
  readonly gatehouse: Gatehouse;
  readonly origin: string;
  readonly issuer: string;
  readonly redirectUri: string;
  /** Where the demo clients land after RP-initiated logout: `{origin}/logged-out`. */
  readonly postLogoutRedirectUri: string;
}

/** Allowed origins from `GATEHOUSE_ALLOWED_ORIGINS` (comma-separated), trimmed, empty entries dropped. */
export function allowedOriginsFromEnv(env: Env = process.env): string[] {
  return (env.GATEHOUSE_ALLOWED_ORIGINS ?? '')
    .split(',')
    .map((origin) => origin.trim())
    .filter(Boolean);
}

/**
 * The signing keys from `GATEHOUSE_SIGNING_KEY` (a private JWK as JSON, e.g. the output of
 * `generateKeys()`, or a JSON array of them), so that several demo processes sharing a storage
 * engine verify each other's tokens; otherwise ephemeral keys, with a warning. The demo signs access
 * tokens with ES256 and ID tokens with RS256 (the default relying parties expect): a missing key of
 * either algorithm is generated.
 */
async function signingKeysFromEnv(env: Env, warn: (message: string) => void): Promise<PrivateJwk[]> {
  const configured = env.GATEHOUSE_SIGNING_KEY;
  const parsed: unknown = configured ? JSON.parse(configured) : [];
  const keys = (Array.isArray(parsed) ? parsed : [parsed]) as PrivateJwk[];
  const missing = (['ES256', 'RS256'] as const).filter(
    (alg) => !keys.some((key) => key.alg === alg || (alg === 'ES256' ? key.kty === 'EC' : key.kty === 'RSA')),
  );
  if (missing.length > 0) {
    warn(
      `gatehouse demo: using an ephemeral ${missing.join(' and ')} signing key; tokens stop verifying when the process restarts. Set GATEHOUSE_SIGNING_KEY (a private JWK from generateKeys(), or a JSON array of an ES256 and an RS256 one) to keep them.`,
    );
  }
  for (const alg of missing) keys.push(await generateKeys(alg));
  return keys;
}

/** What makes one seeded instance: where it lives, its keys and its user's id. */
interface SeedOptions {
  readonly origin: string;
  readonly redirectUri: string;
  readonly postLogoutRedirectUri: string;
  readonly keys: GatehouseOptions['keys'];
  readonly userId: string;
  /** The instance's own API audience (`{issuer}/api/v1`), which `demo-rs` may introspect tokens for. */
  readonly apiAudience: string;
  readonly allowedOrigins?: readonly string[];
  /** Resources (RFC 8707) besides the instance's API that clients may request tokens for. */
  readonly resources?: readonly string[];
  /** The issuer this instance, as an identity provider, issues ID-JAGs for (`acme` → `demo`). */
  readonly idJagAudience?: string;
  /** The identity provider whose ID-JAGs this instance redeems (`demo` ← `acme`). */
  readonly trustedIssuer?: TrustedIssuerOptions;
  /** The admin API with its user and client (`DEMO.admin`): on `demo`. */
  readonly admin?: boolean;
  /** Stored, rotated signing keys (`demoKeyRotation`), which the admin API and console rotate and revoke. */
  readonly keyRotation?: KeyRotationOptions;
}

/**
 * Stored, rotated signing keys for `demo`, so that the admin API, the console and the CLI can
 * rotate and revoke them: encrypted with `GATEHOUSE_KEY_ENCRYPTION_KEY` (base64url, 16 to 32 bytes)
 * when it is set; else, on the in-memory engine (whose stored keys end with the process), with a
 * key-encryption key made at start. Off on Redis and PostgreSQL without it: a key made at start
 * could not read the keys a previous run stored.
 */
export function demoKeyRotation(
  env: Readonly<Record<string, string | undefined>>,
): KeyRotationOptions | undefined {
  const given = env.GATEHOUSE_KEY_ENCRYPTION_KEY;
  if (given) return { keyEncryptionKey: given };
  const engine = (env.GATEHOUSE_STORE ?? 'memory').trim().toLowerCase() || 'memory';
  return engine === 'memory' ? { keyEncryptionKey: crypto.getRandomValues(new Uint8Array(32)) } : undefined;
}

/**
 * Who may call the demo's admin API: the `admin` user (through any client of the instance), and
 * the `demo-admin` client acting for itself; everyone else, the `demo` user included, is refused.
 */
export const DEMO_ADMIN_OPTIONS: NonNullable<GatehouseOptions['admin']> = {
  scope: DEMO.admin.scope,
  authorize: ({ subject }) =>
    subject.kind === 'user'
      ? subject.userId === DEMO.admin.user.id
      : subject.clientId === DEMO.admin.client.id,
};

/**
 * The demo's token exchange policy (RFC 8693 §5: the server decides what each exchange may
 * carry). `demo-agent` may act for this instance's users (never for a client, nor as another
 * actor than itself) with `tickets:read` at the instance's resources besides its own API (the MCP
 * server on `demo`); `demo-enterprise` may obtain ID-JAGs with `tickets:read` for the configured
 * audience. Everyone else: refused.
 */
function demoTokenExchange(seed: SeedOptions): TokenExchangeOptions {
  return {
    ...(seed.idJagAudience === undefined ? {} : { idJagAudiences: [seed.idJagAudience] }),
    policy: ({ client, subject, actor, requested }) => {
      if (client.id === DEMO.agentClient.id && requested.tokenType === TOKEN_TYPES.accessToken) {
        if (subject.kind !== 'access_token' || subject.subject?.kind !== 'user') return null;
        if (actor && !(actor.subject?.kind === 'client' && actor.sub === client.id)) return null;
        return { scope: DEMO.agentClient.scope, audience: seed.resources ?? [] };
      }
      if (client.id === DEMO.enterpriseClient.id && requested.tokenType === TOKEN_TYPES.idJag) {
        if (seed.idJagAudience === undefined) return null;
        return { scope: DEMO.enterpriseClient.scope, audience: [seed.idJagAudience] };
      }
      return null;
    },
  };
}

// A moderate PBKDF2 cost keeps the demo responsive; production hosts keep the default (600,000).
const hasher = pbkdf2Hasher({ iterations: 100_000 });

/**
 * The options of a seeded instance except issuer and storage: the demo's client, public client and
 * user (same ids, secrets, username and password on every instance; the user id is the instance's).
 */
async function seededOptions(seed: SeedOptions): Promise<HostedInstanceOptions> {
  return {
    keys: seed.keys,
    // Keys generated at start are the demo's choice, with the warning of signingKeysFromEnv, also
    // under `next start` (NODE_ENV=production); a production host stores its keys.
    allowEphemeralKeys: true,
    clients: memoryClientStore([
      {
        id: DEMO.client.id,
        name: 'Demo Client',
        type: 'confidential',
        secretHash: await hashClientSecret(DEMO.client.secret),
        redirectUris: [seed.redirectUri],
        postLogoutRedirectUris: [seed.postLogoutRedirectUri],
        firstParty: true,
      },
      {
        id: DEMO.parClient.id,
        name: 'Demo Client (pushed authorization requests)',
        type: 'confidential',
        secretHash: await hashClientSecret(DEMO.parClient.secret),
        tokenEndpointAuthMethod: 'client_secret_basic',
        redirectUris: [seed.redirectUri],
        postLogoutRedirectUris: [seed.postLogoutRedirectUri],
        firstParty: true,
        requirePushedAuthorizationRequests: true,
      },
      {
        id: DEMO.thirdPartyClient.id,
        name: 'Demo Third-Party App',
        type: 'confidential',
        secretHash: await hashClientSecret(DEMO.thirdPartyClient.secret),
        redirectUris: [seed.redirectUri],
        postLogoutRedirectUris: [seed.postLogoutRedirectUri],
      },
      {
        id: DEMO.postClient.id,
        name: 'Demo Client (client_secret_post)',
        type: 'confidential',
        secretHash: await hashClientSecret(DEMO.postClient.secret),
        tokenEndpointAuthMethod: 'client_secret_post',
        grantTypes: ['authorization_code', 'refresh_token'],
        redirectUris: [seed.redirectUri],
        postLogoutRedirectUris: [seed.postLogoutRedirectUri],
        firstParty: true,
      },
      {
        id: DEMO.serviceClient.id,
        name: 'Demo Service',
        type: 'confidential',
        secretHash: await hashClientSecret(DEMO.serviceClient.secret),
        tokenEndpointAuthMethod: 'client_secret_basic',
        grantTypes: ['client_credentials'],
        scopes: [DEMO.serviceClient.scope],
        redirectUris: [],
      },
      {
        id: DEMO.resourceServerClient.id,
        name: 'Demo Resource Server (introspection)',
        type: 'confidential',
        secretHash: await hashClientSecret(DEMO.resourceServerClient.secret),
        tokenEndpointAuthMethod: 'client_secret_basic',
        grantTypes: [],
        introspects: [seed.apiAudience],
        redirectUris: [],
      },
      {
        id: DEMO.jwtClient.id,
        name: 'Demo Client (private_key_jwt)',
        type: 'confidential',
        tokenEndpointAuthMethod: 'private_key_jwt',
        jwks: { keys: [DEMO.jwtClient.publicJwk] },
        // RFC 9101: it may send signed request objects (by value or pushed), with the same key.
        requestObjectSigningAlg: 'ES256',
        grantTypes: ['authorization_code', 'refresh_token', 'client_credentials'],
        scopes: [...DEMO.scopes],
        redirectUris: [seed.redirectUri],
        postLogoutRedirectUris: [seed.postLogoutRedirectUri],
        firstParty: true,
      },
      {
        id: DEMO.cliClient.id,
        name: 'Gatehouse Demo CLI',
        type: 'public',
        tokenEndpointAuthMethod: 'none',
        grantTypes: [DEVICE_CODE_GRANT, 'refresh_token'],
        scopes: DEMO.cliClient.scope.split(' '),
        redirectUris: [],
      },
      {
        id: DEMO.agentClient.id,
        name: 'Demo Agent (token exchange)',
        type: 'confidential',
        secretHash: await hashClientSecret(DEMO.agentClient.secret),
        tokenEndpointAuthMethod: 'client_secret_basic',
        grantTypes: [TOKEN_EXCHANGE_GRANT, 'client_credentials'],
        scopes: [DEMO.agentClient.scope],
        redirectUris: [],
      },
      {
        id: DEMO.enterpriseClient.id,
        name: 'Demo Enterprise MCP Client (ID-JAG)',
        type: 'confidential',
        secretHash: await hashClientSecret(DEMO.enterpriseClient.secret),
        tokenEndpointAuthMethod: 'client_secret_basic',
        grantTypes: ['authorization_code', TOKEN_EXCHANGE_GRANT, JWT_BEARER_GRANT],
        scopes: ['openid', 'profile', DEMO.enterpriseClient.scope],
        redirectUris: [seed.redirectUri],
        postLogoutRedirectUris: [seed.postLogoutRedirectUri],
        firstParty: true,
      },
      ...(seed.admin
        ? [
            {
              id: DEMO.admin.client.id,
              name: 'Demo Admin (admin API, client credentials)',
              type: 'confidential' as const,
              secretHash: await hashClientSecret(DEMO.admin.client.secret),
              tokenEndpointAuthMethod: 'client_secret_basic' as const,
              grantTypes: ['client_credentials' as const],
              scopes: [DEMO.admin.scope],
              redirectUris: [],
            },
          ]
        : []),
      {
        id: DEMO.cibaClient.id,
        name: 'Demo Agent (backchannel authentication)',
        type: 'confidential',
        secretHash: await hashClientSecret(DEMO.cibaClient.secret),
        tokenEndpointAuthMethod: 'client_secret_basic',
        grantTypes: [CIBA_GRANT],
        backchannelTokenDeliveryMode: 'poll',
        scopes: DEMO.cibaClient.scope.split(' '),
        redirectUris: [],
      },
      {
        id: DEMO.publicClient.id,
        name: 'Demo SPA',
        type: 'public',
        redirectUris: [seed.redirectUri],
        postLogoutRedirectUris: [seed.postLogoutRedirectUri],
        firstParty: true,
        allowedOrigins: [seed.origin],
      },
    ]),
    users: memoryUserStore(
      [
        {
          id: seed.userId,
          username: DEMO.user.username,
          passwordHash: await hasher.hash(DEMO.user.password),
          claims: DEMO.user.claims,
        },
        ...(seed.admin
          ? [
              {
                id: DEMO.admin.user.id,
                username: DEMO.admin.user.username,
                passwordHash: await hasher.hash(DEMO.admin.user.password),
                claims: DEMO.admin.user.claims,
              },
            ]
          : []),
      ],
      { hasher },
    ),
    scopes: seed.admin ? [...DEMO.scopes, DEMO.admin.scope] : [...DEMO.scopes],
    ...(seed.admin ? { admin: DEMO_ADMIN_OPTIONS } : {}),
    ...(seed.keyRotation === undefined ? {} : { keyRotation: seed.keyRotation }),
    // `tickets:read` in words on the consent and device pages, like the OpenID Connect scopes.
    ui: { scopeDescriptions: DEMO_SCOPE_DESCRIPTIONS },
    ...(seed.resources === undefined ? {} : { resources: seed.resources }),
    cors: { allowedOrigins: seed.allowedOrigins ?? [] },
    tokenExchange: demoTokenExchange(seed),
    // CIBA: `login_hint` is the username; the demo user approves on `{issuer}/approvals`.
    ciba: {
      resolveLoginHint: (hint) => (hint === DEMO.user.username ? seed.userId : null),
      ...DEMO_CIBA,
    },
    // RFC 9396: `ticket_access` details (actions "read" and/or "write"), enforced by the tickets API.
    authorizationDetails: { types: { [TICKET_ACCESS]: TICKET_ACCESS_TYPE } },
    ...(seed.trustedIssuer === undefined ? {} : { trustedIssuers: [seed.trustedIssuer] }),
    ...DEMO_REGISTRATION,
  };
}

/**
 * Development settings of the demo instances. Client registration: RFC 7591 dynamic registration (public clients, the
 * default; 20 registrations per address and hour, twice the library's default of 10, for a
 * developer trying several MCP clients that register on every connection) and client ID metadata
 * documents. `allowLoopback` is a **development setting**: it accepts
 * `http://localhost…`/`http://127.0.0.1…` client ids and lets the server fetch documents from
 * loopback addresses, so that a client running on the same machine can serve its document. A
 * production instance leaves it off (https documents on public addresses only). On Node.js the
 * fetches check the addresses a host name resolves to by default; on Bun, Deno and workerd the
 * demo uses the runtime's `fetch`, and `createGatehouse` warns that names are not checked.
 * Back-channel logout (OpenID Connect Back-Channel Logout 1.0) is on, with the same development
 * setting: a client may register `backchannel_logout_uri: "http://127.0.0.1:PORT/…"` (or
 * `http://localhost…`) and is sent its logout tokens there; production leaves `allowLoopback` off
 * (https URIs on public addresses only).
 */
export const DEMO_REGISTRATION = {
  dynamicRegistration: { maxPerAddress: 20 },
  clientMetadataDocuments: { allowLoopback: true },
  backchannelLogout: { allowLoopback: true },
  // Every browser and client of a demo on one machine comes from one address (loopback): its share
  // of pending sign-ins is 600 per ten minutes, not the library's 30 per address, so that test
  // suites run against `pnpm start` are not told to wait (a development setting, like the above).
  interactions: { maxPerNetwork: 600 },
} as const satisfies Pick<
  GatehouseOptions,
  'dynamicRegistration' | 'clientMetadataDocuments' | 'backchannelLogout' | 'interactions'
>;

/**
 * Development settings of the demo's CIBA: ping clients registered on the same machine may be told
 * at an `http://localhost…` notification endpoint (`allowLoopback`). A production instance leaves
 * it off (https endpoints on public addresses only).
 */
export const DEMO_CIBA = { ping: { allowLoopback: true } } as const satisfies Pick<
  NonNullable<GatehouseOptions['ciba']>,
  'ping'
>;

/** Creates the demo instance with its seeded client, public client and user. */
export async function createDemo(options: DemoOptions): Promise<Demo> {
  const origin = `http://${options.host ?? 'localhost'}:${options.port}`;
  const issuer = origin + DEMO.instancePath;
  const redirectUri = `${origin}/callback`;
  const postLogoutRedirectUri = `${origin}/logged-out`;
  const env = options.env ?? process.env;
  const keys = options.overrides?.keys ?? (await signingKeysFromEnv(env, options.warn ?? console.warn));
  // `GATEHOUSE_STORE` picks the engine (memory by default) unless the caller passes its own stores.
  const storage = options.overrides?.storage ?? (await storageFromEnv(env));
  const gatehouse = createGatehouse({
    issuer,
    ...(await seededOptions({
      origin,
      redirectUri,
      postLogoutRedirectUri,
      keys,
      userId: DEMO.user.id,
      // The instance's default audience (`audience` option): its own API.
      apiAudience: `${issuer}/api/v1`,
      allowedOrigins: options.allowedOrigins,
      resources: [origin + DEMO.mcp.path],
      admin: true,
    })),
    storage,
    ...options.overrides,
  });
  await gatehouse.ready();
  return { gatehouse, origin, issuer, redirectUri, postLogoutRedirectUri };
}

/**
 * The second instance of the demo host (issue 18): the same client ids, secrets, redirect URI,
 * username and password as `demo`, but its own signing key and user id, so that what isolates
 * instances is visible (a token, code or session of one is refused by the other).
 */
export const ACME = { instancePath: '/acme', user: { id: 'user-acme' } } as const;

/** The instance names the demo host serves. */
export const DEMO_INSTANCES = ['demo', 'acme'] as const;

/** Options of {@link createDemoHost}: those of {@link createDemo} but `overrides`. */
export interface DemoHostOptions extends Omit<DemoOptions, 'overrides'> {
  /** The engine shared by both instances. Default: the one `GATEHOUSE_STORE` names. */
  readonly storage?: StorageEngine;
  /** Overrides for both instances' options (lifetimes, rate limits, …). */
  readonly overrides?: Partial<HostedInstanceOptions>;
  /**
   * Also create the portal (`{origin}/portal/`, issue 29): a host app with its own sign-in and its own
   * OpenID Provider. The host server mounts `portal.fetch`. Default `false`.
   */
  readonly portal?: boolean;
}

/** The demo host and what a server needs to describe it. */
export interface DemoHost {
  readonly host: GatehouseHost;
  readonly origin: string;
  readonly redirectUri: string;
  /** Issuer per instance name. */
  readonly issuers: Readonly<Record<(typeof DEMO_INSTANCES)[number], string>>;
  /**
   * The portal (`{origin}/portal/`): a host app with its own users, sessions and login page, whose
   * own Gatehouse instance (issuer `{origin}/portal`) hands sign-in to it. Mount `portal.fetch`
   * before the host's instances. Present when asked for (`portal: true`).
   */
  readonly portal?: Portal;
  /** Closes the storage engine it opened (nothing when `storage` was given). */
  close(): Promise<void>;
}

/**
 * Both demo instances, `demo` and `acme`, served by one `createGatehouseHost` under one origin
 * (`/demo/…`, `/acme/…`), on one shared storage engine. `demo` is the instance of
 * {@link createDemo} (its key from `GATEHOUSE_SIGNING_KEY` when set); `acme` gets its key from
 * `GATEHOUSE_ACME_SIGNING_KEY`, else an ephemeral one.
 */
export async function createDemoHost(options: DemoHostOptions): Promise<DemoHost> {
  const origin = `http://${options.host ?? 'localhost'}:${options.port}`;
  const redirectUri = `${origin}/callback`;
  const env = options.env ?? process.env;
  const warn = options.warn ?? console.warn;
  const keys = {
    demo: options.overrides?.keys ?? (await signingKeysFromEnv(env, warn)),
    acme:
      options.overrides?.keys ??
      (env.GATEHOUSE_ACME_SIGNING_KEY
        ? [JSON.parse(env.GATEHOUSE_ACME_SIGNING_KEY) as PrivateJwk]
        : [await generateKeys()]),
  };
  const engine = options.storage ? undefined : await engineFromEnv(env);
  // With the caller's engine (a test's), the in-memory rule of `demoKeyRotation` does not apply.
  const keyRotation = options.storage ? undefined : demoKeyRotation(env);
  const seeds = new Map<string, Promise<HostedInstanceOptions>>();
  const issuerOf = (name: 'demo' | 'acme') =>
    origin + (name === 'demo' ? DEMO.instancePath : ACME.instancePath);
  const seed = (name: 'demo' | 'acme') =>
    seededOptions({
      origin,
      redirectUri,
      postLogoutRedirectUri: `${origin}/logged-out`,
      keys: keys[name],
      userId: name === 'demo' ? DEMO.user.id : ACME.user.id,
      // The instance's default audience (`audience` option): its own API.
      apiAudience: `${issuerOf(name)}/api/v1`,
      allowedOrigins: options.allowedOrigins,
      // The MCP server at {origin}/mcp is protected by `demo` only, which redeems the ID-JAGs
      // `acme` (the enterprise identity provider) issues for it.
      ...(name === 'demo'
        ? {
            resources: [origin + DEMO.mcp.path],
            trustedIssuer: acmeAsIdentityProvider(issuerOf('acme'), keys.acme),
            admin: true,
            ...(keyRotation === undefined ? {} : { keyRotation }),
          }
        : { idJagAudience: issuerOf('demo') }),
    }).then((seeded) => ({ ...seeded, ...options.overrides }));
  const host = createGatehouseHost({
    origin,
    storage: options.storage ?? engine!.engine,
    // A real host looks the name up in its database; the demo knows two.
    resolve: (name) => {
      if (name !== 'demo' && name !== 'acme') return null;
      let options = seeds.get(name);
      if (!options) {
        options = seed(name);
        seeds.set(name, options);
      }
      return options;
    },
  });
  // Create both now, so that a configuration problem stops the start rather than the first request.
  for (const name of DEMO_INSTANCES) await host.instance(name);
  const portal = !options.portal
    ? undefined
    : await createPortal({
        origin,
        // Its own keys (GATEHOUSE_PORTAL_SIGNING_KEY, like GATEHOUSE_SIGNING_KEY), else ephemeral ones:
        // another issuer, whose tokens the demo instances refuse.
        keys: await signingKeysFromEnv({ GATEHOUSE_SIGNING_KEY: env.GATEHOUSE_PORTAL_SIGNING_KEY }, () => {}),
        storage: options.storage ?? engine!.engine,
        ...(options.allowedOrigins === undefined ? {} : { allowedOrigins: options.allowedOrigins }),
      });
  return {
    host,
    origin,
    redirectUri,
    issuers: { demo: host.issuerOf('demo'), acme: host.issuerOf('acme') },
    ...(portal === undefined ? {} : { portal }),
    close: async () => engine?.close(),
  };
}

/**
 * `acme` as the identity provider `demo` trusts (ID-JAG, the JWT bearer grant): its public keys
 * inline (the host holds them; no fetch of its own JWKS), its assertions accepted, and its demo
 * user (`user-acme`) taken for the same person as `demo`'s (`user-demo`): the mapping a real
 * authorization server keeps of its single sign-on users.
 */
function acmeAsIdentityProvider(issuer: string, keys: readonly PrivateJwk[]): TrustedIssuerOptions {
  const publicMembers = ['kty', 'crv', 'x', 'y', 'n', 'e', 'kid', 'alg', 'use'];
  return {
    issuer,
    jwks: {
      keys: keys.map((key) =>
        Object.fromEntries(Object.entries(key).filter(([name]) => publicMembers.includes(name))),
      ),
    },
    jwtBearer: true,
    userId: (claims) => (claims.sub === ACME.user.id ? DEMO.user.id : null),
  };
}

/** The lines a demo host server prints on start. */
export function describeDemoHost(demo: DemoHost): string {
  return [
    ...DEMO_INSTANCES.map((name) => `Gatehouse demo instance "${name}": ${demo.issuers[name]}`),
    `  metadata:       ${demo.origin}/.well-known/oauth-authorization-server/{demo,acme}`,
    `  OAuth client:   ${DEMO.client.id} / ${DEMO.client.secret} (confidential), ${DEMO.publicClient.id} (public, PKCE), on both`,
    `  more clients:   ${DEMO.postClient.id} / ${DEMO.postClient.secret} (client_secret_post), ${DEMO.serviceClient.id} / ${DEMO.serviceClient.secret} (client_credentials), ${DEMO.jwtClient.id} (private_key_jwt, demo key ${DEMO.jwtClient.privateKeyPath})`,
    `  device flow:    ${DEMO.cliClient.id} (public, device code + refresh token, ${DEMO.cliClient.scope}), on both; verification page ${demo.origin}/{demo,acme}/device`,
    `  token exchange: ${DEMO.agentClient.id} / ${DEMO.agentClient.secret} (RFC 8693: a demo user's token → one for ${demo.origin}${DEMO.mcp.path}, act.sub = ${DEMO.agentClient.id})`,
    `  ID-JAG:         ${DEMO.enterpriseClient.id} / ${DEMO.enterpriseClient.secret} (acme's ID token → ID-JAG at acme → MCP token at demo, JWT bearer grant)`,
    `  PAR client:     ${DEMO.parClient.id} / ${DEMO.parClient.secret} (client_secret_basic, must push its requests: RFC 9126), on both`,
    `  CIBA client:    ${DEMO.cibaClient.id} / ${DEMO.cibaClient.secret} (client_secret_basic, poll mode, ${DEMO.cibaClient.scope}, login_hint=${DEMO.user.username}); approval page ${demo.origin}/{demo,acme}/approvals`,
    `  introspection:  ${DEMO.resourceServerClient.id} / ${DEMO.resourceServerClient.secret} (client_secret_basic, a resource server: may introspect the tokens for ${demo.origin}/{demo,acme}/api/v1, RFC 7662), on both`,
    `  redirect URI:   ${demo.redirectUri}`,
    `  user:           ${DEMO.user.username} / ${DEMO.user.password} (user id ${DEMO.user.id} on demo, ${ACME.user.id} on acme)`,
    `  tickets API:    POST ${demo.origin}/{demo,acme}/api/v1/tickets (bearer or session), POST …/tickets/create (a token with a ${TICKET_ACCESS} detail allowing "write")`,
    `  RAR:            authorization_details [{"type":"${TICKET_ACCESS}","actions":["read"]}] (actions: read, write; RFC 9396)`,
    `  admin API:      ${demo.issuers.demo}/admin/v1/ (OpenAPI: …/admin/v1/openapi.json), demo only: user ${DEMO.admin.user.username} / ${DEMO.admin.user.password}, client ${DEMO.admin.client.id} / ${DEMO.admin.client.secret} (client_credentials, scope ${DEMO.admin.scope})`,
    `  console:        ${demo.issuers.demo}/admin/ (${DEMO.admin.user.username} / ${DEMO.admin.user.password}; \`npx gatehouse admin --help\` for the CLI); connected apps: ${demo.origin}/{demo,acme}/account/apps`,
    `  registration:   POST ${demo.origin}/{demo,acme}/oauth2/v1/register (RFC 7591), or a client ID metadata document URL as client_id (loopback http allowed: development setting)`,
    ...(demo.portal === undefined
      ? []
      : [
          `Portal (a host app with its own sign-in): ${demo.origin}${PORTAL.path}/ (login ${demo.origin}${PORTAL.path}/login)`,
          `  OpenID Provider: ${demo.portal.issuer} (discovery ${demo.portal.issuer}/.well-known/openid-configuration)`,
          `  OAuth client:   ${PORTAL.client.id} / ${PORTAL.client.secret} (client_secret_basic, first-party, scopes ${PORTAL.scopes.join(' ')})`,
          `  user:           ${PORTAL.user.email} / ${PORTAL.user.password} (sub ${PORTAL.user.sub}, ${PORTAL.user.name})`,
        ]),
  ].join('\n');
}

/** The lines a demo server prints on start. */
export function describeDemo(demo: Demo): string {
  return [
    `Gatehouse demo instance: ${demo.issuer}`,
    `  metadata:       ${demo.issuer}/.well-known/oauth-authorization-server`,
    `  OpenID Connect: ${demo.issuer}/.well-known/openid-configuration`,
    `  OAuth client:   ${DEMO.client.id} / ${DEMO.client.secret} (confidential), ${DEMO.publicClient.id} (public, PKCE)`,
    `  third party:    ${DEMO.thirdPartyClient.id} / ${DEMO.thirdPartyClient.secret} (confidential, asks for consent)`,
    `  more clients:   ${DEMO.postClient.id} / ${DEMO.postClient.secret} (client_secret_post), ${DEMO.serviceClient.id} / ${DEMO.serviceClient.secret} (client_credentials, ${DEMO.serviceClient.scope}), ${DEMO.jwtClient.id} (private_key_jwt and signed request objects, demo key ${DEMO.jwtClient.privateKeyPath})`,
    `  device flow:    ${DEMO.cliClient.id} (public, device code + refresh token, ${DEMO.cliClient.scope}); verification page ${demo.issuer}/device`,
    `  token exchange: ${DEMO.agentClient.id} / ${DEMO.agentClient.secret} (RFC 8693: a demo user's token → one for ${demo.origin}${DEMO.mcp.path}, act.sub = ${DEMO.agentClient.id})`,
    `  PAR client:     ${DEMO.parClient.id} / ${DEMO.parClient.secret} (client_secret_basic, must push its requests: RFC 9126)`,
    `  CIBA client:    ${DEMO.cibaClient.id} / ${DEMO.cibaClient.secret} (client_secret_basic, poll mode, ${DEMO.cibaClient.scope}, login_hint=${DEMO.user.username}); approval page ${demo.issuer}/approvals`,
    `  introspection:  ${DEMO.resourceServerClient.id} / ${DEMO.resourceServerClient.secret} (client_secret_basic, a resource server: may introspect the tokens for ${demo.issuer}/api/v1, RFC 7662)`,
    `  redirect URI:   ${demo.redirectUri} (after sign-out: ${demo.postLogoutRedirectUri})`,
    `  scopes:         ${DEMO.scopes.join(' ')}`,
    `  user:           ${DEMO.user.username} / ${DEMO.user.password}`,
    `  tickets API:    POST ${demo.issuer}/api/v1/tickets (bearer or session; client tokens with ${DEMO.serviceClient.scope}), POST …/tickets/create (a token with a ${TICKET_ACCESS} detail allowing "write")`,
    `  RAR:            authorization_details [{"type":"${TICKET_ACCESS}","actions":["read"]}] (actions: read, write; RFC 9396)`,
    `  admin API:      ${demo.issuer}/admin/v1/ (OpenAPI: ${demo.issuer}/admin/v1/openapi.json): user ${DEMO.admin.user.username} / ${DEMO.admin.user.password}, client ${DEMO.admin.client.id} / ${DEMO.admin.client.secret} (client_credentials, scope ${DEMO.admin.scope})`,
    `  registration:   POST ${demo.issuer}/oauth2/v1/register (RFC 7591), or a client ID metadata document URL as client_id (loopback http allowed: development setting)`,
  ].join('\n');
}
