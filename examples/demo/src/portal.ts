/**
 * The portal (issue 29, item 7): an existing web app with its own users, sessions and login page,
 * which also is an OpenID Provider. Its Gatehouse instance (issuer `{origin}/portal`) never shows a
 * login page of its own: it hands sign-in to the portal's page (`interactions.url`) and asks the
 * portal who is signed in (`interactions.currentUser`), so a browser signed in to the portal gets
 * codes with no page at all, and signing out of the portal signs out of the provider.
 *
 * Everything is one Web handler, `portal.fetch(request)` (`undefined` for paths it does not serve),
 * so every host (Express, Koa, Hono, Fastify, Next.js) mounts it like the demo's REST operations.
 * Demo only: users and sessions live in this process's memory, and the credentials are public.
 */
import {
  createGatehouse,
  type Gatehouse,
  type GatehouseOptions,
  hashClientSecret,
  memoryClientStore,
  pbkdf2Hasher,
} from '@gatehousejs/core';
import {
  BUILT_IN_SCOPE_DESCRIPTIONS,
  BUILT_IN_STYLESHEET,
  escapeHtml,
  type HostUser,
  type InteractionDetails,
  InteractionError,
} from '@gatehousejs/core/ui';
import { DEMO_SCOPE_DESCRIPTIONS } from './scopes.js';

/** What the portal's consent page says of each scope: the built-in pages' words, and the demo's. */
const SCOPE_WORDS: Readonly<Record<string, string>> = {
  ...BUILT_IN_SCOPE_DESCRIPTIONS,
  ...DEMO_SCOPE_DESCRIPTIONS,
};

/** The portal's seed (exact: third-party clients are run against it). */
export const PORTAL = {
  path: '/portal',
  client: { id: 'portal-client', secret: 'portal-secret' },
  user: {
    sub: 'alice',
    email: 'alice@example.com',
    password: 'alice-password',
    name: 'Alice Example',
  },
  scopes: ['openid', 'profile', 'email', 'offline_access', 'tickets:read'],
  /** The portal's own session cookie (not Gatehouse's). */
  cookieName: 'portal_session',
} as const;

/** Options of {@link createPortal}. */
export interface PortalOptions {
  /** The host's origin, `http://localhost:<port>`. */
  readonly origin: string;
  /** Signing keys of the portal's instance (an ES256 and an RS256 one). */
  readonly keys: GatehouseOptions['keys'];
  /** Gatehouse's storage for the portal's instance (an engine: the instance takes its own view). */
  readonly storage?: GatehouseOptions['storage'];
  /** Extra allowed CORS origins. */
  readonly allowedOrigins?: readonly string[];
}

/** The portal: its Gatehouse instance and the handler of all its routes. */
export interface Portal {
  readonly gatehouse: Gatehouse;
  readonly issuer: string;
  /** Answers the portal's pages and its instance's routes; `undefined` for any other path. */
  fetch(request: Request): Promise<Response | undefined>;
  /**
   * The same as an instance-like object (`handles` + `fetch`, 404 for an unknown `/portal/…` path),
   * for adapters that mount instances by path (Fastify's plugin).
   */
  readonly servable: {
    readonly basePath: string;
    handles(url: URL | string): boolean;
    fetch(request: Request): Promise<Response>;
  };
}

interface PortalUser {
  readonly sub: string;
  readonly email: string;
  readonly passwordHash: string;
  readonly claims: Readonly<Record<string, unknown>>;
}

interface PortalSession {
  readonly sub: string;
  readonly authTime: number;
  readonly amr: readonly string[];
  readonly expiresAt: number;
}

/** Portal sessions last 8 hours; at most this many live at once (a demo in one process). */
const SESSION_MS = 8 * 3600_000;
const MAX_SESSIONS = 10_000;
const hasher = pbkdf2Hasher({ iterations: 100_000 });

/** Creates the portal at `{origin}/portal`. */
export async function createPortal(options: PortalOptions): Promise<Portal> {
  const { origin } = options;
  const base = origin + PORTAL.path;
  const users: PortalUser[] = [
    {
      sub: PORTAL.user.sub,
      email: PORTAL.user.email,
      passwordHash: await hasher.hash(PORTAL.user.password),
      claims: {
        name: PORTAL.user.name,
        email: PORTAL.user.email,
        email_verified: true,
        preferred_username: PORTAL.user.email,
      },
    },
  ];
  const dummyHash = await hasher.hash('portal-dummy-password');
  const sessions = new Map<string, PortalSession>();

  const sessionOf = (request: Request): { id: string; session: PortalSession } | null => {
    const id = cookieValue(request, PORTAL.cookieName);
    if (id === undefined) return null;
    const session = sessions.get(id);
    if (!session) return null;
    if (session.expiresAt <= Date.now()) {
      sessions.delete(id);
      return null;
    }
    return { id, session };
  };

  const gatehouse = createGatehouse({
    issuer: base,
    keys: options.keys,
    // The demo's keys may be generated at start (with the demo's warning), also under `next start`.
    allowEphemeralKeys: true,
    ...(options.storage === undefined ? {} : { storage: options.storage }),
    clients: memoryClientStore([
      {
        id: PORTAL.client.id,
        name: 'Portal Client',
        type: 'confidential',
        secretHash: await hashClientSecret(PORTAL.client.secret),
        tokenEndpointAuthMethod: 'client_secret_basic',
        redirectUris: [`${origin}/callback`],
        postLogoutRedirectUris: [`${origin}/logged-out`],
        scopes: [...PORTAL.scopes],
        firstParty: true,
      },
    ]),
    // The portal's users, looked up by Gatehouse; passwords are the portal's business.
    users: {
      async findUser(id) {
        const user = users.find((u) => u.sub === id);
        return user ? { id: user.sub, username: user.email, claims: user.claims } : null;
      },
    },
    scopes: [...PORTAL.scopes],
    ui: { scopeDescriptions: DEMO_SCOPE_DESCRIPTIONS },
    authApi: { enabled: false },
    cors: { allowedOrigins: options.allowedOrigins ?? [] },
    interactions: {
      url: `${PORTAL.path}/login`,
      // One machine, one loopback address for every browser: a development share (see DEMO_REGISTRATION).
      maxPerNetwork: 600,
      // The portal's session is the source of truth: Gatehouse asks it on every authorization request.
      currentUser: (request): HostUser | null => {
        const found = sessionOf(request);
        return found && { sub: found.session.sub, authTime: found.session.authTime, amr: found.session.amr };
      },
    },
  });
  await gatehouse.ready();

  /** The page a failed or refused request shows. */
  const errorPage = (status: number, message: string) =>
    page(
      status,
      'Portal',
      `<h1>Portal</h1><p role="alert" class="alert">${escapeHtml(message)}</p><p class="muted"><a href="${PORTAL.path}/">Portal home</a></p>`,
    );

  async function loginPage(request: Request, url: URL, error?: string, email?: string): Promise<Response> {
    const reference = url.searchParams.get('interaction');
    let details: InteractionDetails | undefined;
    if (reference !== null) {
      try {
        details = await gatehouse.interactions.details(request);
      } catch (e) {
        if (e instanceof InteractionError) return errorPage(e.status, e.message);
        throw e;
      }
      if (details.step === 'consent') return consentPage(details);
    }
    const action = `${PORTAL.path}/login${reference === null ? '' : `?interaction=${encodeURIComponent(reference)}`}`;
    const prefill = email ?? details?.loginHint ?? '';
    const asking = details
      ? `<p>Sign in to continue to <strong>${escapeHtml(details.client.name)}</strong>.</p>`
      : '';
    return page(
      error ? 400 : 200,
      'Sign in to the portal',
      `<h1>Sign in to the portal</h1>${asking}
${error ? `<p role="alert" class="alert">${escapeHtml(error)}</p>` : ''}
<form method="post" action="${escapeHtml(action)}">
<label>Email <input type="email" name="email" autocomplete="username" value="${escapeHtml(prefill)}" required></label>
<label>Password <input type="password" name="password" autocomplete="current-password" required></label>
<button type="submit">Sign in</button>
</form>`,
    );
  }

  function consentPage(details: InteractionDetails): Response {
    const action = `${PORTAL.path}/consent?interaction=${encodeURIComponent(details.id)}`;
    // Each scope in words where there are some (the scope string as its tooltip), else its name.
    const scopes = details.scopes
      .map((s) =>
        Object.hasOwn(SCOPE_WORDS, s)
          ? `<li title="${escapeHtml(s)}">${escapeHtml(SCOPE_WORDS[s]!)}</li>`
          : `<li><code>${escapeHtml(s)}</code></li>`,
      )
      .join('');
    return page(
      200,
      'Allow access?',
      `<h1>Allow ${escapeHtml(details.client.name)} (${escapeHtml(details.redirectHost)}) access?</h1><ul class="scopes">${scopes}</ul>
<form method="post" action="${escapeHtml(action)}">
<div class="row">
<button type="submit" name="decision" value="allow">Allow</button>
<button type="submit" name="decision" value="deny" class="secondary">Deny</button>
</div>
</form>`,
    );
  }

  async function login(request: Request, url: URL): Promise<Response> {
    const form = new URLSearchParams(await request.text());
    const email = (form.get('email') ?? '').slice(0, 256);
    const password = (form.get('password') ?? '').slice(0, 256);
    const user = users.find((u) => u.email === email.toLowerCase());
    // Unknown users cost as much as a wrong password: timing does not tell which emails exist.
    const ok = await hasher.verify(password, user?.passwordHash ?? dummyHash);
    if (!user || !ok) return loginPage(request, url, 'The email or password is incorrect.', email);
    const now = Date.now();
    if (sessions.size >= MAX_SESSIONS) sweep(sessions, now);
    if (sessions.size >= MAX_SESSIONS) return errorPage(503, 'The portal is busy. Try again later.');
    const previous = sessionOf(request);
    if (previous) sessions.delete(previous.id); // a new id at every sign-in: no fixation
    const id = randomId();
    const session: PortalSession = {
      sub: user.sub,
      authTime: now,
      amr: ['pwd'],
      expiresAt: now + SESSION_MS,
    };
    sessions.set(id, session);
    const cookie = `${PORTAL.cookieName}=${id}; Path=${PORTAL.path}; HttpOnly; SameSite=Lax${origin.startsWith('https:') ? '; Secure' : ''}`;
    let location = `${PORTAL.path}/`;
    if (url.searchParams.has('interaction')) {
      try {
        ({ location } = await gatehouse.interactions.finish(request, {
          login: { sub: user.sub, authTime: now, amr: session.amr },
        }));
      } catch (e) {
        if (!(e instanceof InteractionError)) throw e;
        const response = errorPage(e.status, e.message);
        response.headers.append('Set-Cookie', cookie);
        return response;
      }
    }
    return redirect(location, [cookie]);
  }

  async function consent(request: Request): Promise<Response> {
    const form = new URLSearchParams(await request.text());
    const current = sessionOf(request);
    const decision = form.get('decision');
    try {
      const { location } = await gatehouse.interactions.finish(request, {
        ...(current
          ? {
              login: {
                sub: current.session.sub,
                authTime: current.session.authTime,
                amr: current.session.amr,
              },
            }
          : {}),
        consent: decision === 'allow' ? {} : { denied: true },
      });
      return redirect(location);
    } catch (e) {
      if (e instanceof InteractionError) return errorPage(e.status, e.message);
      throw e;
    }
  }

  async function logout(request: Request): Promise<Response> {
    const found = sessionOf(request);
    if (found) sessions.delete(found.id);
    const cookies = [`${PORTAL.cookieName}=; Path=${PORTAL.path}; HttpOnly; SameSite=Lax; Max-Age=0`];
    // Gatehouse's own session of this browser ends too: nothing signed in survives the sign-out.
    cookies.push(await gatehouse.endSession(request));
    return redirect(`${PORTAL.path}/`, cookies);
  }

  function home(request: Request): Response {
    const found = sessionOf(request);
    const user = found && users.find((u) => u.sub === found.session.sub);
    const body = user
      ? `<h1>Portal</h1><p>Signed in as <strong id="email">${escapeHtml(user.email)}</strong>.</p>
<form method="post" action="${PORTAL.path}/logout"><button type="submit">Sign out</button></form>`
      : `<h1>Portal</h1><p>You are not signed in. <a href="${PORTAL.path}/login">Sign in</a></p>`;
    return page(200, 'Portal', body);
  }

  const fetchPortal = async (request: Request): Promise<Response | undefined> => {
    const url = new URL(request.url);
    const path = url.pathname;
    const method = request.method;
    if (path === `${PORTAL.path}/` || path === PORTAL.path) {
      if (method !== 'GET' && method !== 'HEAD') return methodNotAllowed('GET, HEAD');
      return path === PORTAL.path ? redirect(`${PORTAL.path}/`) : home(request);
    }
    if (path === `${PORTAL.path}/login`) {
      if (method === 'GET' || method === 'HEAD') return loginPage(request, url);
      if (method !== 'POST') return methodNotAllowed('GET, HEAD, POST');
      if (isCrossSite(request, origin))
        return errorPage(403, 'Cross-site requests to this form are refused.');
      return login(request, url);
    }
    if (path === `${PORTAL.path}/consent`) {
      if (method !== 'POST') return methodNotAllowed('POST');
      if (isCrossSite(request, origin))
        return errorPage(403, 'Cross-site requests to this form are refused.');
      return consent(request);
    }
    if (path === `${PORTAL.path}/logout`) {
      if (method !== 'POST') return methodNotAllowed('POST');
      // A foreign page cannot sign the user out (nor anything else here).
      if (isCrossSite(request, origin))
        return errorPage(403, 'Cross-site requests to this form are refused.');
      return logout(request);
    }
    return gatehouse.handles(url) ? gatehouse.fetch(request) : undefined;
  };
  return {
    gatehouse,
    issuer: base,
    fetch: fetchPortal,
    servable: {
      basePath: PORTAL.path,
      handles(input) {
        const url = typeof input === 'string' ? new URL(input) : input;
        return (
          url.pathname === PORTAL.path || url.pathname.startsWith(`${PORTAL.path}/`) || gatehouse.handles(url)
        );
      },
      async fetch(request) {
        return (await fetchPortal(request)) ?? new Response('Not found', { status: 404 });
      },
    },
  };
}

/**
 * A cross-site browser request: an `Origin` other than the portal's (including `null`), or
 * `Sec-Fetch-Site: cross-site` / `same-site`. Requests without either header (not a browser's form
 * post) are let through; a browser always sends `Origin` with a POST.
 */
function isCrossSite(request: Request, origin: string): boolean {
  const from = request.headers.get('origin');
  if (from !== null && from !== origin) return true;
  const site = request.headers.get('sec-fetch-site');
  return site !== null && site !== 'same-origin' && site !== 'none';
}

function cookieValue(request: Request, name: string): string | undefined {
  for (const part of (request.headers.get('cookie') ?? '').split(';')) {
    const eq = part.indexOf('=');
    if (eq > 0 && part.slice(0, eq).trim() === name) {
      const value = part.slice(eq + 1).trim();
      return /^[A-Za-z0-9_-]{43}$/.test(value) ? value : undefined;
    }
  }
  return undefined;
}

function randomId(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(32));
  return btoa(String.fromCharCode(...bytes))
    .replace(/\+/g, '-')
    .replace(/\//g, '_')
    .replace(/=+$/, '');
}

function sweep(sessions: Map<string, PortalSession>, now: number): void {
  for (const [id, session] of sessions) if (session.expiresAt <= now) sessions.delete(id);
}

const SECURITY_HEADERS = {
  'Content-Type': 'text/html;charset=UTF-8',
  'Cache-Control': 'no-store',
  'Content-Security-Policy': // No form-action: the sign-in form's POST ends, through redirects, at the client's redirect URI.
    "default-src 'none'; style-src 'unsafe-inline'; frame-ancestors 'none'; base-uri 'none'",
  'X-Frame-Options': 'DENY',
  'X-Content-Type-Options': 'nosniff',
  'Referrer-Policy': 'same-origin',
};

/** A portal page, in the built-in pages' look (their stylesheet, the content in a card). */
function page(status: number, title: string, body: string): Response {
  return new Response(
    `<!doctype html>\n<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>${escapeHtml(title)}</title><style>${BUILT_IN_STYLESHEET}</style></head><body><main>\n${body}\n</main></body></html>\n`,
    { status, headers: SECURITY_HEADERS },
  );
}

function redirect(location: string, cookies: readonly string[] = []): Response {
  const headers = new Headers({ Location: location, 'Cache-Control': 'no-store' });
  for (const cookie of cookies) headers.append('Set-Cookie', cookie);
  return new Response(null, { status: 303, headers });
}

function methodNotAllowed(allow: string): Response {
  return new Response(null, { status: 405, headers: { Allow: allow } });
}
