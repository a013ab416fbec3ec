/**
 * An existing Express app (issue 29, item 6): its own users, its own login page with
 * passport-local, its own sessions with express-session. It becomes an OAuth 2.0 authorization
 * server / OpenID Provider by mounting Gatehouse at `/oauth` and handing it its sign-in:
 *
 * - `interactions.url: '/login'`: an authorization request that needs the user lands on the app's own
 *   login page, which finishes the interaction after passport has signed the user in;
 * - `interactions.currentUser`: reads the app's own express-session, so a signed-in user gets codes
 *   without a second login, and signing out of the app signs out of the authorization server;
 * - the same page answers the consent step (`prompt=consent`, which clients asking for
 *   `offline_access` often send): the signed-in user allows or denies the client its scopes.
 *
 * Demo only: users and sessions live in memory, the credentials and the session secret are public.
 */
import {
  createGatehouse,
  type Gatehouse,
  generateKeys,
  hashClientSecret,
  memoryClientStore,
  pbkdf2Hasher,
  type UserRecord,
} from '@gatehousejs/core';
import { escapeHtml, type HostUser, type InteractionDetails, InteractionError } from '@gatehousejs/core/ui';
import { gatehouse as mountGatehouse, toRequest } from '@gatehousejs/express';
import { unsign } from 'cookie-signature';
import express from 'express';
import session from 'express-session';
import { authenticator } from 'otplib';
import passport from 'passport';
import { Strategy as LocalStrategy } from 'passport-local';

/** The seeded user and client. */
export const SEED = {
  user: {
    id: 'u-1001',
    email: 'ada@example.com',
    password: 'ada-password',
    name: 'Ada Lovelace',
    /** The user's TOTP secret (RFC 6238, base32), public here: a demo. */
    totpSecret: 'JBSWY3DPEHPK3PXPJBSWY3DPEHPK3PXP',
  },
  client: { id: 'passport-demo-client', secret: 'passport-demo-secret' },
} as const;

/** The authentication context class of a sign-in with a password and a TOTP: what `acr_values` asks for. */
export const MFA_ACR = 'urn:example:acr:mfa';

const SESSION_COOKIE = 'connect.sid';

/** What the app keeps in its session after a sign-in (besides passport's user id). */
declare module 'express-session' {
  interface SessionData {
    authTime?: number;
    amr?: string[];
    acr?: string;
  }
}

interface AppUser {
  readonly id: string;
  readonly email: string;
  readonly passwordHash: string;
  readonly name: string;
}

/** The app and its authorization server. */
export interface PassportApp {
  readonly app: express.Express;
  readonly gatehouse: Gatehouse;
  readonly issuer: string;
}

/** Options of {@link createApp}. */
export interface PassportAppOptions {
  /** `http://localhost:<port>`: the origin the app is reached at. */
  readonly origin: string;
  /** express-session's secret. */
  readonly sessionSecret?: string;
}

const hasher = pbkdf2Hasher({ iterations: 100_000 });

export async function createApp(options: PassportAppOptions): Promise<PassportApp> {
  const { origin } = options;
  const secret = options.sessionSecret ?? 'demo-session-secret-change-me';
  // The app's own user table (a database in a real app).
  const users = new Map<string, AppUser>([
    [
      SEED.user.id,
      {
        id: SEED.user.id,
        email: SEED.user.email,
        name: SEED.user.name,
        passwordHash: await hasher.hash(SEED.user.password),
      },
    ],
  ]);
  const dummyHash = await hasher.hash('dummy-password');
  const byEmail = (email: string) => [...users.values()].find((u) => u.email === email.toLowerCase());

  const store = new session.MemoryStore();
  const app = express();
  app.disable('x-powered-by');
  app.use(
    session({
      name: SESSION_COOKIE,
      secret,
      store,
      resave: false,
      saveUninitialized: false,
      cookie: { httpOnly: true, sameSite: 'lax', secure: origin.startsWith('https:') },
    }),
  );
  passport.use(
    new LocalStrategy({ usernameField: 'email' }, (email, password, done) => {
      const user = byEmail(email);
      // Unknown emails cost as much as a wrong password.
      hasher.verify(password, user?.passwordHash ?? dummyHash).then(
        (ok) => done(null, user && ok ? user : false),
        (error) => done(error),
      );
    }),
  );
  passport.serializeUser((user, done) => done(null, (user as AppUser).id));
  passport.deserializeUser((id: string, done) => done(null, users.get(id) ?? false));
  app.use(passport.session());

  /** The app's signed-in user of a Web request: its express-session, read from the store. */
  async function currentUser(request: Request): Promise<HostUser | null> {
    const raw = cookieValue(request, SESSION_COOKIE);
    if (!raw?.startsWith('s:')) return null;
    const sid = unsign(raw.slice(2), secret);
    if (sid === false) return null;
    const data = await new Promise<session.SessionData | null | undefined>((resolve, reject) =>
      store.get(sid, (error, value) => (error ? reject(error) : resolve(value))),
    );
    const id = (data as { passport?: { user?: string } } | null | undefined)?.passport?.user;
    if (!id || !users.has(id) || data?.authTime === undefined) return null;
    return {
      sub: id,
      authTime: data.authTime,
      amr: data.amr ?? ['pwd'],
      ...(data.acr === undefined ? {} : { acr: data.acr }),
    };
  }

  const issuer = `${origin}/oauth`;
  const gatehouse = createGatehouse({
    issuer,
    keys: [await generateKeys('ES256'), await generateKeys('RS256')],
    // An example's keys, made at start: a production app stores its keys and drops this.
    allowEphemeralKeys: true,
    clients: memoryClientStore([
      {
        id: SEED.client.id,
        name: 'Passport Demo Client',
        type: 'confidential',
        secretHash: await hashClientSecret(SEED.client.secret),
        redirectUris: [`${origin}/callback`],
        // RP-initiated logout (`{issuer}/oauth2/v1/end-session`) sends the browser back here.
        postLogoutRedirectUris: [`${origin}/logged-out`],
        firstParty: true,
      },
    ]),
    // Gatehouse looks the app's users up; passwords stay the app's business.
    users: {
      async findUser(id): Promise<UserRecord | null> {
        const user = users.get(id);
        return user
          ? { id: user.id, username: user.email, claims: { name: user.name, email: user.email } }
          : null;
      },
    },
    scopes: ['openid', 'profile', 'email'],
    authApi: { enabled: false },
    interactions: { url: '/login', currentUser },
  });
  await gatehouse.ready();
  app.use(mountGatehouse(gatehouse));

  // `toRequest(req, res)`: with `res`, the Web request's `signal` aborts when the browser goes away
  // before the answer is sent (Node does not report it on `req` once the body is read). The
  // interaction calls work with `toRequest(req)` as well; the signal is for whatever else the page
  // would await for the request.
  const withInteraction = (path: string, interaction: unknown) =>
    `${path}${typeof interaction === 'string' ? `?interaction=${encodeURIComponent(interaction)}` : ''}`;
  const otpUrl = (interaction: unknown) => withInteraction('/login/otp', interaction);

  app.get('/login', async (req, res) => {
    let asking = '';
    if (typeof req.query.interaction === 'string') {
      try {
        const details = await gatehouse.interactions.details(toRequest(req, res));
        // The user is signed in (the app's session, through currentUser) and must allow the client.
        if (details.step === 'consent') {
          return void res.type('html').send(consentPage(details, req.query.interaction));
        }
        // Signed in with the password already, and the client asks for more: only the TOTP is missing.
        const fresh = !details.prompt.includes('login') && details.maxAge === undefined;
        if (req.user && fresh && details.acrValues.includes(MFA_ACR))
          return res.redirect(303, otpUrl(req.query.interaction));
        asking = `<p>Sign in to continue to <strong>${escapeHtml(details.client.name)}</strong>.</p>`;
      } catch (error) {
        if (!(error instanceof InteractionError)) throw error;
        res
          .status(error.status)
          .type('html')
          .send(`<p role="alert">${escapeHtml(error.message)}</p>`);
        return;
      }
    }
    const failed = req.query.failed === '1' ? '<p role="alert">The email or password is incorrect.</p>' : '';
    res
      .type('html')
      .send(`<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Sign in</title></head><body>
<h1>Sign in</h1>${asking}${failed}
<form method="post" action="${escapeHtml(req.originalUrl)}">
<label>Email <input type="email" name="email" autocomplete="username" required></label>
<label>Password <input type="password" name="password" autocomplete="current-password" required></label>
<button type="submit">Sign in</button>
</form></body></html>`);
  });

  app.post(
    '/login',
    express.urlencoded({ extended: false }),
    (req, res, next) => {
      // The login form is posted from the app's own page only (login CSRF).
      const from = req.get('origin');
      if (from !== undefined && from !== origin)
        return void res.status(403).send('Cross-site request refused.');
      next();
    },
    (req, res, next) => {
      const interaction = typeof req.query.interaction === 'string' ? req.query.interaction : undefined;
      const failure = `/login?failed=1${interaction ? `&interaction=${encodeURIComponent(interaction)}` : ''}`;
      passport.authenticate('local', { failureRedirect: failure })(req, res, next);
    },
    async (req, res, next) => {
      req.session.authTime = Date.now();
      req.session.amr = ['pwd'];
      delete req.session.acr;
      if (typeof req.query.interaction !== 'string') return void res.redirect(303, '/account');
      try {
        const details = await gatehouse.interactions.details(toRequest(req, res));
        // A consent step (the form was posted from an older page): the consent page, now signed in.
        if (details.step === 'consent')
          return void res.redirect(303, withInteraction('/login', req.query.interaction));
        // The client asks for a second factor (acr_values): the TOTP step next.
        if (details.acrValues.includes(MFA_ACR)) return void res.redirect(303, otpUrl(req.query.interaction));
        const { location } = await gatehouse.interactions.finish(toRequest(req, res), {
          login: { sub: (req.user as AppUser).id, authTime: req.session.authTime, amr: req.session.amr },
        });
        res.redirect(303, location);
      } catch (error) {
        if (error instanceof InteractionError)
          return void res.status(error.status).send(escapeHtml(error.message));
        next(error);
      }
    },
  );

  // The consent step's answer: Allow or Deny, by the signed-in user the interaction is bound to.
  app.post('/login/consent', express.urlencoded({ extended: false }), async (req, res, next) => {
    const from = req.get('origin');
    if (from !== undefined && from !== origin)
      return void res.status(403).send('Cross-site request refused.');
    if (!req.user) return void res.redirect(303, withInteraction('/login', req.query.interaction));
    try {
      const allowed = req.body?.decision === 'allow';
      // `consent: {}` allows the scopes and resources asked for (and remembers it for a year);
      // `{ denied: true }` sends the client `access_denied`.
      const { location } = await gatehouse.interactions.finish(toRequest(req, res), {
        consent: allowed ? {} : { denied: true },
      });
      res.redirect(303, location);
    } catch (error) {
      if (error instanceof InteractionError)
        return void res.status(error.status).send(escapeHtml(error.message));
      next(error);
    }
  });

  // The second factor: a TOTP (RFC 6238) after the password, for clients whose acr_values ask for it.
  app.get('/login/otp', (req, res) => {
    if (!req.user) return void res.redirect(303, `/login${req.originalUrl.slice('/login/otp'.length)}`);
    const failed = req.query.failed === '1' ? '<p role="alert">The code is incorrect.</p>' : '';
    res
      .type('html')
      .send(`<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Verification code</title></head><body>
<h1>Enter the code from your authenticator app</h1>${failed}
<form method="post" action="${escapeHtml(req.originalUrl.replace(/[?&]failed=1/, ''))}">
<label>Code <input name="otp" inputmode="numeric" autocomplete="one-time-code" pattern="[0-9]{6}" required></label>
<button type="submit">Verify</button>
</form></body></html>`);
  });

  app.post('/login/otp', express.urlencoded({ extended: false }), async (req, res, next) => {
    const from = req.get('origin');
    if (from !== undefined && from !== origin)
      return void res.status(403).send('Cross-site request refused.');
    const user = req.user as AppUser | undefined;
    if (!user) return void res.redirect(303, '/login');
    const otp = typeof req.body?.otp === 'string' ? req.body.otp : '';
    if (!authenticator.check(otp, SEED.user.totpSecret)) {
      const sep = req.originalUrl.includes('?') ? '&' : '?';
      return void res.redirect(303, `${req.originalUrl}${sep}failed=1`);
    }
    req.session.authTime = Date.now();
    req.session.amr = ['pwd', 'otp'];
    req.session.acr = MFA_ACR;
    if (typeof req.query.interaction !== 'string') return void res.redirect(303, '/account');
    try {
      const { location } = await gatehouse.interactions.finish(toRequest(req, res), {
        login: { sub: user.id, authTime: req.session.authTime, amr: req.session.amr, acr: MFA_ACR },
      });
      res.redirect(303, location);
    } catch (error) {
      if (error instanceof InteractionError)
        return void res.status(error.status).send(escapeHtml(error.message));
      next(error);
    }
  });

  app.get('/account', (req, res) => {
    const user = req.user as AppUser | undefined;
    if (!user) return void res.redirect(303, '/login');
    res
      .type('html')
      .send(`<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Account</title></head><body>
<p>Signed in as <strong id="email">${escapeHtml(user.email)}</strong>.</p>
<form method="post" action="/logout"><button type="submit">Sign out</button></form></body></html>`);
  });

  app.post('/logout', (req, res, next) => {
    const from = req.get('origin');
    if (from !== undefined && from !== origin)
      return void res.status(403).send('Cross-site request refused.');
    // Gatehouse's own session of this browser ends with the app's: the app's session is the truth.
    gatehouse.endSession(toRequest(req, res)).then((expired) => {
      res.append('Set-Cookie', expired);
      req.logout((error) => {
        if (error) return next(error);
        req.session.destroy(() => res.redirect(303, '/login'));
      });
    }, next);
  });

  // Where the demo client lands (a real client is another app).
  app.get('/callback', (req, res) => {
    res.type('text').send(`code=${String(req.query.code ?? '')} error=${String(req.query.error ?? '')}`);
  });

  // Where the demo client lands after RP-initiated logout.
  app.get('/logged-out', (req, res) => {
    res.type('text').send(`signed out of the authorization server state=${String(req.query.state ?? '')}`);
  });

  return { app, gatehouse, issuer };
}

/** The consent page: who asks for what, and Allow / Deny posted to `/login/consent`. */
function consentPage(details: InteractionDetails, interaction: unknown): string {
  const action = `/login/consent?interaction=${encodeURIComponent(String(interaction))}`;
  const scopes = details.scopes.map((scope) => `<li>${escapeHtml(scope)}</li>`).join('');
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Allow access</title></head><body>
<h1>Allow ${escapeHtml(details.client.name)} to access your account?</h1>
<ul id="scopes">${scopes}</ul>
<form method="post" action="${escapeHtml(action)}">
<button type="submit" name="decision" value="allow">Allow</button>
<button type="submit" name="decision" value="deny">Deny</button>
</form></body></html>`;
}

function cookieValue(request: Request, name: string): string | undefined {
  for (const part of (request.headers.get('cookie') ?? '').split(';')) {
    const eq = part.indexOf('=');
    if (eq > 0 && part.slice(0, eq).trim() === name) {
      try {
        return decodeURIComponent(part.slice(eq + 1).trim());
      } catch {
        return undefined;
      }
    }
  }
  return undefined;
}
