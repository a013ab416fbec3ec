import type { Context } from '../context.js';
import { invalidRequest, ProtocolError } from '../errors.js';
import type { InstanceAnswer } from '../feature.js';
import { type Params, readForm } from '../http/form.js';
import { isForeignBrowserRequest } from '../http/origin.js';
import type { Answer } from '../http/reply.js';
import { noStoreEmpty } from '../http/responses.js';
import type { Handler, Route } from '../http/router.js';
import { checkFormPost, crossSiteRefused, pageCsrfToken } from '../session/csrf.js';
import {
  type AuditView,
  auditBody,
  type ClientView,
  type ConsoleFrame,
  type ConsoleNotice,
  type ConsoleSection,
  clientsBody,
  consoleDocument,
  type KeysView,
  keysBody,
  overviewBody,
  refusedDocument,
  type UsersView,
  usersBody,
} from '../ui/console-pages.js';
import { htmlPage } from '../ui/page-response.js';
import { errorPage, pageLanguage, withSources } from '../ui/pages.js';
import { PAGE_PATHS } from '../ui/paths.js';
import {
  type AdminAnswer,
  AdminApi,
  type AdminAuditRecord,
  type AdminClient,
  type AdminGrant,
  type AdminHealth,
  type AdminKeys,
  type AdminMetrics,
  type AdminSession,
  type AdminUser,
  segment,
} from './admin-api.js';
import { CONSOLE_PATHS, type ConsoleSettings } from './settings.js';
import { consoleToken, finishSignIn, signedOutCookies, startSignIn } from './sign-in.js';

/*
 * The console's routes. Every page reads the admin API with the browser's console token (none: the
 * sign-in first); a 401 from the API (the token expired or was revoked) starts a new sign-in, a
 * 403 (the host's `admin.authorize` does not designate this user, or the token lacks the scope) is
 * the refusal page. Every action is a POST form (origin check and double-submitted CSRF token,
 * `session/csrf.ts`) that makes one admin API call and answers 303 back to its section with what
 * happened (post/redirect/get), so a reload repeats nothing.
 */

/** What the console's handlers share: its settings and the instance's own handler (once bound). */
export interface ConsoleRuntime {
  readonly settings: ConsoleSettings;
  answer(): InstanceAnswer;
}

type ConsoleContext = Omit<Context, 'keys'>;

/** An admin API answer the page cannot go on with: sign in again, or refused. */
class Interrupted extends Error {
  constructor(readonly status: 401 | 403) {
    super(`admin API ${status}`);
  }
}

/** `body` of an answer that must be a success; throws {@link Interrupted} for 401 and 403. */
function ok<T>(answer: AdminAnswer<T>): T | undefined {
  if (answer.status === 401 || answer.status === 403) throw new Interrupted(answer.status);
  return answer.status >= 200 && answer.status < 300 ? answer.body : undefined;
}

/** A time of the API (epoch ms, epoch seconds or ISO 8601) in epoch ms. */
function toMs(value: unknown): number | undefined {
  if (typeof value === 'number' && Number.isFinite(value)) return value > 1e11 ? value : value * 1000;
  if (typeof value === 'string') {
    const parsed = Date.parse(value);
    return Number.isFinite(parsed) ? parsed : undefined;
  }
  return undefined;
}

function text(value: unknown): string {
  return typeof value === 'string' ? value : value === undefined || value === null ? '' : String(value);
}

/** The `sub` of the console's access token (the API checked it; this only names who is shown). */
function tokenSubject(token: string): string | undefined {
  try {
    const payload = token.split('.')[1] ?? '';
    const json = atob(payload.replace(/-/g, '+').replace(/_/g, '/'));
    const sub = (JSON.parse(json) as { sub?: unknown }).sub;
    return typeof sub === 'string' ? sub : undefined;
  } catch {
    return undefined;
  }
}

async function username(ctx: ConsoleContext, token: string): Promise<string | undefined> {
  const sub = tokenSubject(token);
  if (sub === undefined) return undefined;
  const user = await ctx.users.findUser(sub).catch(() => null);
  return user?.username ?? sub;
}

/** The notice a 303 back to a section carries (`?notice=…`), whitelisted. */
function noticeOf(url: URL): ConsoleNotice | undefined {
  const query = url.searchParams;
  const value = (name: string) => (query.get(name) ?? '').slice(0, 256);
  switch (query.get('notice')) {
    case 'rotated':
      return { text: 'consoleRotated' };
    case 'key-revoked':
      return { text: 'consoleKeyRevoked', values: { kid: value('kid') } };
    case 'client-deleted':
      return { text: 'consoleClientDeleted', values: { client: value('client') } };
    case 'session-revoked':
      return { text: 'consoleSessionRevoked' };
    case 'grant-revoked':
      return { text: 'consoleGrantRevoked' };
    case 'user-revoked':
      return { text: 'consoleUserRevoked' };
  }
  const error = query.get('error');
  if (error !== null && /^[a-z0-9_]{1,64}$/.test(error))
    return { text: 'consoleApiError', values: { error }, error: true };
  return undefined;
}

/** What a console handler gets: the context, the request, the API with this browser's token. */
interface ConsoleCall {
  readonly ctx: ConsoleContext;
  readonly request: Request;
  readonly url: URL;
  readonly api: AdminApi;
  readonly token: string;
}

/**
 * A console handler: sign-in first without a token; the API's 401 → sign in again (the old token
 * cookie cleared); 403 → the refusal page; a 4xx `ProtocolError` → the error page.
 */
function consoleRoute(runtime: ConsoleRuntime, run: (call: ConsoleCall) => Promise<Answer>): Handler {
  return async (request, ctx, url) => {
    try {
      const token = consoleToken(ctx, request);
      if (token === undefined) return await startSignIn(ctx, runtime.settings);
      const api = new AdminApi(ctx.issuer, runtime.answer(), token);
      return await run({ ctx, request, url, api, token });
    } catch (error) {
      if (error instanceof Interrupted) return interrupted(ctx, runtime, request, error);
      if (error instanceof ProtocolError && error.status < 500)
        return errorPage(ctx, error, undefined, request);
      throw error;
    }
  };
}

async function interrupted(
  ctx: ConsoleContext,
  runtime: ConsoleRuntime,
  request: Request,
  error: Interrupted,
): Promise<Answer> {
  const cleared = signedOutCookies(ctx);
  // The token no longer works (expired, revoked): it goes, and a new sign-in starts.
  if (error.status === 401) return startSignIn(ctx, runtime.settings, [cleared[0]!]);
  const token = consoleToken(ctx, request);
  const { context, texts } = pageLanguage(ctx, request);
  const who = token === undefined ? undefined : await username(ctx, token);
  const html = refusedDocument(
    {
      base: `${ctx.site.basePath}/admin`,
      csrfToken: '',
      texts,
      locale: context.locale,
      ...(who === undefined ? {} : { username: who }),
    },
    ctx.site.basePath + PAGE_PATHS.logout,
  );
  const headers = new Headers();
  for (const cookie of cleared) headers.append('Set-Cookie', cookie);
  return htmlPage(html, withSources(ctx, { status: 403, headers }));
}

/** A console page of `section`, titled `title`, around `body` (built with the frame). */
async function page(
  call: ConsoleCall,
  section: ConsoleSection,
  title: (frame: ConsoleFrame) => string,
  body: (frame: ConsoleFrame) => string,
): Promise<Answer> {
  const { ctx, request, url, token } = call;
  const csrf = pageCsrfToken(ctx, request);
  const { context, texts } = pageLanguage(ctx, request);
  const who = await username(ctx, token);
  const notice = noticeOf(url);
  const frame: ConsoleFrame = {
    base: `${ctx.site.basePath}/admin`,
    section,
    csrfToken: csrf.token,
    texts,
    locale: context.locale,
    ...(who === undefined ? {} : { username: who }),
    ...(notice === undefined ? {} : { notice }),
  };
  const html = consoleDocument(frame, title(frame), body(frame));
  return htmlPage(
    html,
    withSources(ctx, { headers: csrf.setCookie ? { 'Set-Cookie': csrf.setCookie } : {} }),
  );
}

function series(values: Readonly<Record<string, readonly number[]>> | undefined) {
  return Object.entries(values ?? {})
    .filter(([, counts]) => Array.isArray(counts))
    .map(([name, counts]) => ({ name, values: counts }));
}

const overview = (runtime: ConsoleRuntime) =>
  consoleRoute(runtime, async (call) => {
    const [health, metrics] = await Promise.all([
      call.api.call<AdminHealth>('GET', '/health'),
      call.api.call<AdminMetrics>('GET', '/metrics'),
    ]);
    // A degraded instance answers its health with 503: still a health to show.
    const state = health.status === 503 ? health.body : ok(health);
    const counts = ok(metrics);
    return page(
      call,
      'overview',
      (frame) => frame.texts.consoleOverview,
      (frame) =>
        overviewBody(frame, {
          ...(state === undefined
            ? {}
            : {
                health: {
                  ...(state.status === undefined ? {} : { status: state.status }),
                  ...(state.engine?.reachable === undefined ? {} : { reachable: state.engine.reachable }),
                  ...(state.engine?.latencyMs === undefined ? {} : { latencyMs: state.engine.latencyMs }),
                  lagMs: state.revocations?.lagMs ?? null,
                  ...(state.keys?.signing === undefined ? {} : { signingKid: state.keys.signing }),
                },
              }),
          tokens: series(counts?.series?.tokensIssued),
          refusals: series(counts?.series?.refusals),
        }),
    );
  });

function keysView(body: AdminKeys | undefined, now: number): KeysView {
  return {
    keys: (body?.keys ?? []).map((key) => {
      const since = toMs(key.since ?? key.publishedAt);
      const until = toMs(key.until);
      return {
        kid: text(key.kid),
        state: text(key.state),
        revocable: key.source !== 'option' && key.state !== 'revoked',
        ...(key.alg === undefined ? {} : { alg: text(key.alg) }),
        ...(since === undefined ? {} : { since }),
        ...(until === undefined ? {} : { until }),
      };
    }),
    why: (body?.signingKeys ?? (body?.signing ? [body.signing] : []))
      .filter((key) => key.why !== undefined)
      .map((key) => ({ kid: text(key.kid), alg: text((key as { alg?: unknown }).alg), why: text(key.why) })),
    ...(body?.cost === undefined ? {} : { cost: text(body.cost) }),
    now,
  };
}

const keys = (runtime: ConsoleRuntime) =>
  consoleRoute(runtime, async (call) => {
    const listed = ok(await call.api.call<AdminKeys>('GET', '/keys'));
    return page(
      call,
      'keys',
      (frame) => frame.texts.consoleKeys,
      (frame) => keysBody(frame, keysView(listed, call.ctx.clock.now())),
    );
  });

const clients = (runtime: ConsoleRuntime) =>
  consoleRoute(runtime, async (call) => {
    const listed = ok(await call.api.call<{ clients?: AdminClient[] }>('GET', '/clients'));
    const views: ClientView[] = (listed?.clients ?? []).map((client) => {
      const createdAt = toMs(client.createdAt);
      return {
        clientId: text(client.clientId),
        ...(client.name === undefined ? {} : { name: text(client.name) }),
        selfRegistered: client.selfRegistered === true,
        ...(client.origin === undefined ? {} : { origin: text(client.origin) }),
        grantTypes: Array.isArray(client.grantTypes) ? client.grantTypes.map(text) : [],
        ...(createdAt === undefined ? {} : { createdAt }),
      };
    });
    return page(
      call,
      'clients',
      (frame) => frame.texts.consoleClients,
      (frame) => clientsBody(frame, views),
    );
  });

function times<K extends string>(record: Partial<Record<K, unknown>>, names: readonly K[]) {
  const out: Partial<Record<K, number>> = {};
  for (const name of names) {
    const ms = toMs(record[name]);
    if (ms !== undefined) out[name] = ms;
  }
  return out;
}

const users = (runtime: ConsoleRuntime) =>
  consoleRoute(runtime, async (call) => {
    const query = call.url.searchParams.get('q')?.slice(0, 256) ?? '';
    const userId = call.url.searchParams.get('user')?.slice(0, 256) ?? '';
    const found =
      query === ''
        ? undefined
        : ok(
            await call.api.call<{ users?: AdminUser[] }>(
              'GET',
              `/users?${new URLSearchParams({ q: query })}`,
            ),
          );
    let selected: UsersView['selected'];
    if (userId !== '') {
      const [sessions, grants] = await Promise.all([
        call.api.call<{ sessions?: AdminSession[] }>('GET', `/users/${segment(userId)}/sessions`),
        call.api.call<{ grants?: AdminGrant[] }>('GET', `/users/${segment(userId)}/grants`),
      ]);
      selected = {
        id: userId,
        sessions: (ok(sessions)?.sessions ?? []).map((session) => ({
          id: text(session.id),
          ...times(session, ['createdAt', 'lastSeenAt', 'expiresAt'] as const),
          clients: Array.isArray(session.clients) ? session.clients.map(text) : [],
        })),
        grants: (ok(grants)?.grants ?? []).map((grant) => ({
          id: text(grant.id),
          clientId: text(grant.clientId),
          scope: Array.isArray(grant.scope) ? grant.scope.join(' ') : text(grant.scope),
          ...times(grant, ['createdAt', 'lastUsedAt', 'expiresAt'] as const),
        })),
      };
    }
    const view: UsersView = {
      query,
      ...(found === undefined
        ? {}
        : {
            users: (found.users ?? []).map((user) => ({
              id: text(user.id),
              ...(user.username === undefined ? {} : { username: text(user.username) }),
              ...(user.name === undefined ? {} : { name: text(user.name) }),
            })),
          }),
      ...(selected === undefined ? {} : { selected }),
    };
    return page(
      call,
      'users',
      (frame) => frame.texts.consoleUsers,
      (frame) => usersBody(frame, view),
    );
  });

const AUDIT_FILTERS = ['type', 'subject', 'clientId', 'limit'] as const;

const audit = (runtime: ConsoleRuntime) =>
  consoleRoute(runtime, async (call) => {
    const filters = Object.fromEntries(
      AUDIT_FILTERS.map((name) => [name, (call.url.searchParams.get(name) ?? '').slice(0, 256)]),
    ) as Record<(typeof AUDIT_FILTERS)[number], string>;
    const query = new URLSearchParams(Object.entries(filters).filter(([, value]) => value !== ''));
    const answer = ok(
      await call.api.call<{ records?: AdminAuditRecord[] }>(
        'GET',
        `/audit${query.toString() === '' ? '' : `?${query}`}`,
      ),
    );
    const records: AuditView['records'] = (answer?.records ?? []).map((record) => {
      const time = toMs(record.time);
      const details = {
        ...(record.actor === undefined ? {} : { actor: record.actor }),
        ...(record.details ?? {}),
      };
      return {
        ...(time === undefined ? {} : { time }),
        type: text(record.type),
        outcome: [text(record.outcome), text(record.reason)].filter(Boolean).join(': '),
        subject: text(record.subject),
        clientId: text(record.clientId),
        details: Object.keys(details).length === 0 ? '' : JSON.stringify(details),
      };
    });
    return page(
      call,
      'audit',
      (frame) => frame.texts.consoleAudit,
      (frame) => auditBody(frame, { filters, records }),
    );
  });

/**
 * A console action: the form checks (cross-site and CSRF: 403 page), then `act`, which makes its
 * one admin API call and says where to go back (its section, with the notice). An API refusal other
 * than 401/403 goes back with `?error=<code>`.
 */
function action(
  runtime: ConsoleRuntime,
  act: (call: ConsoleCall, params: Params) => Promise<{ answer: AdminAnswer; back: string; done: string }>,
): Handler {
  const handler = consoleRoute(runtime, async (call) => {
    const params = await readForm(call.request, call.ctx.limits.maxBodyBytes);
    await checkFormPost(call.ctx, call.request, params);
    const { answer, back, done } = await act(call, params);
    ok(answer);
    const base = `${call.ctx.site.basePath}/admin`;
    const separator = back.includes('?') ? '&' : '?';
    const location =
      answer.status >= 200 && answer.status < 300
        ? `${base}${back}${separator}${done}`
        : `${base}${back}${separator}${new URLSearchParams({ error: errorCode(answer) })}`;
    return noStoreEmpty(303, { Location: location });
  });
  return async (request, ctx, url) => {
    if (isForeignBrowserRequest(ctx, request))
      return errorPage(ctx, crossSiteRefused(ctx, request), undefined, request);
    return handler(request, ctx, url);
  };
}

function errorCode(answer: AdminAnswer): string {
  const code = (answer.body as { error?: unknown }).error;
  return typeof code === 'string' && /^[a-z0-9_]{1,64}$/.test(code) ? code : `http_${answer.status}`;
}

function required(params: Params, name: string): string {
  const value = params.get(name);
  if (value === undefined || value.length > 512) throw invalidRequest(`The form has no valid "${name}".`);
  return value;
}

/** Where a user's actions go back to: the user's details (and the search they came from). */
function userBack(params: Params): string {
  const user = params.get('user') ?? '';
  const query = params.get('q') ?? '';
  return `/users?${new URLSearchParams({ ...(query === '' ? {} : { q: query.slice(0, 256) }), user: user.slice(0, 256) })}`;
}

const rotate = (runtime: ConsoleRuntime) =>
  action(runtime, async ({ api }, params) => ({
    answer: await api.call('POST', '/keys/rotate', { now: params.get('now') === 'true' }),
    back: '/keys',
    done: 'notice=rotated',
  }));

const revokeKey = (runtime: ConsoleRuntime) =>
  action(runtime, async ({ api }, params) => {
    const kid = required(params, 'kid');
    return {
      answer: await api.call('POST', `/keys/${segment(kid)}/revoke`),
      back: '/keys',
      done: new URLSearchParams({ notice: 'key-revoked', kid }).toString(),
    };
  });

const deleteClient = (runtime: ConsoleRuntime) =>
  action(runtime, async ({ api }, params) => {
    const clientId = required(params, 'client_id');
    return {
      answer: await api.call('DELETE', `/clients/${segment(clientId)}`),
      back: '/clients',
      done: new URLSearchParams({ notice: 'client-deleted', client: clientId }).toString(),
    };
  });

const revokeSession = (runtime: ConsoleRuntime) =>
  action(runtime, async ({ api }, params) => ({
    answer: await api.call('DELETE', `/sessions/${segment(required(params, 'session_id'))}`),
    back: userBack(params),
    done: 'notice=session-revoked',
  }));

const revokeGrant = (runtime: ConsoleRuntime) =>
  action(runtime, async ({ api }, params) => ({
    answer: await api.call('DELETE', `/grants/${segment(required(params, 'grant_id'))}`),
    back: userBack(params),
    done: 'notice=grant-revoked',
  }));

const revokeUser = (runtime: ConsoleRuntime) =>
  action(runtime, async ({ api }, params) => ({
    answer: await api.call('POST', `/users/${segment(required(params, 'user'))}/revoke`),
    back: userBack(params),
    done: 'notice=user-revoked',
  }));

/** `POST {base}/admin/signout`: ends the console's sign-in here, then the instance's logout page. */
const signOut: Handler = async (request, ctx) => {
  if (isForeignBrowserRequest(ctx, request))
    return errorPage(ctx, crossSiteRefused(ctx, request), undefined, request);
  try {
    await checkFormPost(ctx, request, await readForm(request, ctx.limits.maxBodyBytes));
  } catch (error) {
    if (error instanceof ProtocolError && error.status < 500)
      return errorPage(ctx, error, undefined, request);
    throw error;
  }
  const headers = new Headers({ Location: ctx.site.basePath + PAGE_PATHS.logout });
  for (const cookie of signedOutCookies(ctx)) headers.append('Set-Cookie', cookie);
  return noStoreEmpty(303, headers);
};

/** `GET {base}/admin/callback`: the end of the sign-in (`sign-in.ts`). */
const callback =
  (runtime: ConsoleRuntime): Handler =>
  async (request, ctx, url) => {
    try {
      return await finishSignIn(ctx, runtime.settings, runtime.answer(), request, url);
    } catch (error) {
      if (error instanceof ProtocolError && error.status < 500)
        return errorPage(ctx, error, undefined, request);
      throw error;
    }
  };

/** The console's routes below the instance path. */
export function consoleRoutes(runtime: ConsoleRuntime): Route[] {
  return [
    { path: CONSOLE_PATHS.home, aliases: ['{mount}/admin'], methods: { GET: overview(runtime) } },
    { path: CONSOLE_PATHS.callback, methods: { GET: callback(runtime) } },
    { path: CONSOLE_PATHS.signOut, methods: { POST: signOut } },
    { path: CONSOLE_PATHS.keys, methods: { GET: keys(runtime) } },
    { path: CONSOLE_PATHS.rotate, methods: { POST: rotate(runtime) } },
    { path: CONSOLE_PATHS.revokeKey, methods: { POST: revokeKey(runtime) } },
    { path: CONSOLE_PATHS.clients, methods: { GET: clients(runtime) } },
    { path: CONSOLE_PATHS.deleteClient, methods: { POST: deleteClient(runtime) } },
    { path: CONSOLE_PATHS.users, methods: { GET: users(runtime) } },
    { path: CONSOLE_PATHS.revokeUser, methods: { POST: revokeUser(runtime) } },
    { path: CONSOLE_PATHS.revokeSession, methods: { POST: revokeSession(runtime) } },
    { path: CONSOLE_PATHS.revokeGrant, methods: { POST: revokeGrant(runtime) } },
    { path: CONSOLE_PATHS.audit, methods: { GET: audit(runtime) } },
  ];
}
