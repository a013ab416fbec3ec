import type { Context } from '../context.js';
import { oauthError } from '../errors.js';
import { listGrants, revokeUserGrant } from '../revocation/user-grants.js';
import { revokeUser } from '../session/ending.js';
import type { SessionLifecycle } from '../session/lifecycle.js';
import { listSessions, revokeSession } from '../session/user-sessions.js';
import type { ClientRecord, RegisteredClient, UserRecord } from '../storage/types.js';
import type { KeyRotationSettings } from '../tokens/rotation/settings.js';
import type { PendingSigningKeys } from '../tokens/rotation/signing-keys.js';
import { instanceHealth } from './health.js';
import { parseUserScopedId, userScopedId } from './ids.js';
import { keysView, revokeKey, rotateKeys } from './keys.js';
import { AUDIT_RECORDS } from './recorder.js';
import { list, object, ref, type Schema } from './schemas.js';
import type { AdminSettings } from './settings.js';

/*
 * The admin API's one route table: every operation's method, path, parameters, answer schema and
 * handler. The routes (`routes.ts`) and the OpenAPI document (`openapi.ts`) are both made from it,
 * so neither can describe an operation the other lacks.
 */

/** A query parameter of an operation. */
export interface QueryParameter {
  readonly name: string;
  readonly description: string;
  readonly schema: Schema;
  readonly required?: boolean;
}

/** What a handler gets: the request's context, its path and query parameters, its JSON body. */
export interface AdminCall {
  readonly ctx: Context;
  readonly params: Readonly<Record<string, string>>;
  readonly query: URLSearchParams;
  readonly body: Readonly<Record<string, unknown>>;
}

/** What a state-changing operation acted on, for its audit record (`admin.action`). */
export interface ActionTarget {
  readonly target?: string;
  readonly userId?: string;
}

/** A handler's answer: a JSON body (200) or none (204), and for actions what they acted on. */
export type AdminAnswer =
  | { readonly status: 200; readonly body: unknown; readonly action?: ActionTarget }
  | { readonly status: 204; readonly action?: ActionTarget };

/** One operation of the admin API. */
export interface AdminOperation {
  readonly operationId: string;
  readonly method: 'GET' | 'POST' | 'DELETE';
  /** Below `{base}/admin/v1`, with `{name}` path parameters (OpenAPI's syntax). */
  readonly path: string;
  readonly summary: string;
  readonly description: string;
  readonly query?: readonly QueryParameter[];
  /** The JSON body's schema (an object; the body may be empty). */
  readonly requestBody?: Schema;
  /** The 200 answer's schema; absent: 204 without a body. */
  readonly response?: Schema;
  /** Error statuses beside 400, 401, 403 (every operation has those). */
  readonly errors?: readonly (404 | 409)[];
  readonly handle: (call: AdminCall) => Promise<AdminAnswer>;
}

/** What the operations are built with (the admin feature's settings and the instance's). */
export interface AdminDependencies {
  readonly settings: AdminSettings;
  readonly keyRotation: KeyRotationSettings | undefined;
  readonly storedKeys: PendingSigningKeys;
  /** The host's clients, when its store can list them (`memoryClientStore`). */
  readonly hostClients: readonly ClientRecord[] | undefined;
  /** The instance's session lifecycle: sessions the admin API ends are reported to it (back-channel logout). */
  readonly sessions: SessionLifecycle;
}

/** Most clients `listClients` answers. */
export const MAX_LISTED_CLIENTS = 500;
/** Most users `findUsers` answers. */
export const MAX_FOUND_USERS = 50;
/** Most audit records `readAudit` answers at once (default 50). */
export const MAX_AUDIT_LIMIT = 200;
/** Longest query value accepted (a user search, an audit filter). */
const MAX_QUERY_LENGTH = 256;

const iso = (at: number | undefined) => (at === undefined ? undefined : new Date(at).toISOString());
const ok = (body: unknown, action?: ActionTarget): AdminAnswer =>
  action === undefined ? { status: 200, body } : { status: 200, body, action };
const notFound = (what: string) => oauthError('not_found', `No such ${what}.`);

/** A query value, bounded; `undefined` when absent or empty. */
function queryValue(query: URLSearchParams, name: string): string | undefined {
  const value = query.get(name);
  if (value === null || value === '') return undefined;
  if (value.length > MAX_QUERY_LENGTH)
    throw oauthError('invalid_request', `${name}: at most ${MAX_QUERY_LENGTH} characters.`);
  return value;
}

const textParameter = (name: string, description: string, required = false): QueryParameter => ({
  name,
  description,
  schema: { type: 'string', maxLength: MAX_QUERY_LENGTH },
  ...(required ? { required } : {}),
});

/** Every operation of the admin API, in the order the document lists them. */
export function adminOperations(deps: AdminDependencies): readonly AdminOperation[] {
  const { settings, keyRotation, storedKeys, hostClients, sessions } = deps;
  const keys = () => storedKeys.ready;
  return [
    {
      operationId: 'health',
      method: 'GET',
      path: '/health',
      summary: 'Health of the instance',
      description:
        'Whether the storage engine answers (and how fast), the lag of the pushed-revocations channel in this process, and the state of every signing key. `degraded` when the engine does not answer or the keys cannot be read.',
      response: ref('Health'),
      handle: async ({ ctx }) => ok(await instanceHealth(ctx, await keys(), keyRotation)),
    },
    {
      operationId: 'metrics',
      method: 'GET',
      path: '/metrics',
      summary: 'Counters of the last hour',
      description:
        "Per-minute counts of the last 60 minutes, oldest first, from this process's events: tokens issued per grant type, refusals by reason (the `reason` of failure audit records). In-process: each process of a deployment counts its own.",
      response: ref('Metrics'),
      handle: async ({ ctx }) => ok(settings.recorder.metrics(ctx.clock.now())),
    },
    {
      operationId: 'listKeys',
      method: 'GET',
      path: '/keys',
      summary: 'The signing keys, their states, and why the signing key signs',
      description:
        'Every key with its state (`next`, `signing`, `retired`, `revoked`) since and until when, and per algorithm a sentence saying why its signing key is the one it is. `revoked` keys are those revoked through this API in the last 30 days (at most 20).',
      response: ref('Keys'),
      handle: async ({ ctx }) => ok(await keysView(ctx, await keys(), keyRotation)),
    },
    {
      operationId: 'rotateKeys',
      method: 'POST',
      path: '/keys/rotate',
      summary: 'Rotate the signing keys',
      description:
        'The next key of every rotated algorithm signs as soon as it has been published for its lead time (at once if it has), and a new next key is published. With `now: true` it signs at once, and `cost` says what that costs: relying parties that cached the key set before the next key was published refuse its tokens until they fetch it again. 409 `not_rotatable` without `keyRotation`.',
      requestBody: { type: 'object', properties: { now: { type: 'boolean' } }, additionalProperties: false },
      response: ref('Keys'),
      errors: [409],
      handle: async ({ ctx, body }) => {
        const now = body.now ?? false;
        if (typeof now !== 'boolean') throw oauthError('invalid_request', 'now: expected a boolean.');
        return ok(await rotateKeys(ctx, await keys(), keyRotation, now), {
          target: now ? 'now' : 'scheduled',
        });
      },
    },
    {
      operationId: 'revokeKey',
      method: 'POST',
      path: '/keys/{kid}/revoke',
      summary: 'Revoke a stored signing key',
      description:
        'The key leaves the key set and its tokens stop verifying, at once in this process and within the refresh interval in the others. If it was signing, the previous key signs again while it is still retained, else the next key signs at once. 404 for an unknown `kid`, 409 `not_rotatable` for a key of the `keys` option.',
      response: ref('Keys'),
      errors: [404, 409],
      handle: async ({ ctx, params }) =>
        ok(await revokeKey(ctx, await keys(), keyRotation, params.kid!), { target: params.kid! }),
    },
    {
      operationId: 'listClients',
      method: 'GET',
      path: '/clients',
      summary: 'The clients',
      description: `The host's clients (when its store can list them: \`memoryClientStore\`) and the registrations of the instance's registry (dynamic registration), newest first, at most ${MAX_LISTED_CLIENTS}. \`registered=self\`: the registrations only.`,
      query: [
        {
          name: 'registered',
          description: '`self`: only the clients that registered themselves.',
          schema: { type: 'string', enum: ['self'] },
        },
      ],
      response: object({ clients: list(ref('Client')) }),
      handle: async ({ ctx, query }) => {
        const registered = queryValue(query, 'registered');
        if (registered !== undefined && registered !== 'self')
          throw oauthError('invalid_request', 'registered: expected "self".');
        const listing = ctx.storage.clients.listClients;
        const own =
          typeof listing === 'function'
            ? await listing.call(ctx.storage.clients, ctx.clock.now(), MAX_LISTED_CLIENTS)
            : [];
        const clients: Record<string, unknown>[] = own.map(registeredClient);
        if (registered === undefined)
          for (const client of hostClients ?? []) {
            if (clients.length >= MAX_LISTED_CLIENTS) break;
            clients.push(hostClient(client));
          }
        return ok({ clients });
      },
    },
    {
      operationId: 'deleteClient',
      method: 'DELETE',
      path: '/clients/{clientId}',
      summary: 'Delete a self-registered client',
      description:
        "Removes a registration of the instance's registry: its refresh tokens stop working at once, its access tokens run to their expiry. 409 `not_deletable` for a client of the host (remove it from the host's store), 404 for an unknown one.",
      errors: [404, 409],
      handle: async ({ ctx, params }) => {
        const clientId = params.clientId!;
        const registration = await ctx.storage.clients.findClient(clientId, ctx.clock.now());
        if (registration === null) {
          if (hostClients?.some((client) => client.id === clientId))
            throw oauthError(
              'not_deletable',
              "This client is the host's: remove it from the host's client store.",
            );
          throw notFound('self-registered client');
        }
        await ctx.storage.clients.deleteClient(clientId);
        ctx.emit({ type: 'client.unregistered', clientId });
        return { status: 204, action: { target: clientId } };
      },
    },
    {
      operationId: 'findUsers',
      method: 'GET',
      path: '/users',
      summary: 'Find users',
      description: `The host's users matching \`q\`: by default the user whose id is \`q\`; with the \`admin.findUsers\` hook, whatever it finds (at most ${MAX_FOUND_USERS}).`,
      query: [textParameter('q', 'A user id (or what the host’s `admin.findUsers` searches by).', true)],
      response: object({ users: list(ref('User')) }),
      handle: async ({ ctx, query }) => {
        const q = queryValue(query, 'q');
        if (q === undefined) throw oauthError('invalid_request', 'q: required.');
        const found: readonly UserRecord[] = settings.findUsers
          ? ((await settings.findUsers(q)) as readonly UserRecord[])
          : [await ctx.users.findUser(q)].filter((user): user is UserRecord => user !== null);
        if (!Array.isArray(found)) throw new TypeError('admin.findUsers: expected an array of users.');
        const users = found
          .filter((user) => typeof user?.id === 'string' && user.id !== '')
          .slice(0, MAX_FOUND_USERS)
          .map((user) => {
            const name = user.claims?.name;
            return {
              id: user.id,
              ...(typeof user.username === 'string' ? { username: user.username } : {}),
              ...(typeof name === 'string' ? { name } : {}),
            };
          });
        return ok({ users });
      },
    },
    {
      operationId: 'listUserSessions',
      method: 'GET',
      path: '/users/{userId}/sessions',
      summary: "A user's sessions",
      description:
        "The user's live browser sessions, most recently active first (the per-user index: the 50 most recent sign-ins), each with the clients whose grants started from it. `id` is what `revokeSession` takes.",
      response: object({ sessions: list(ref('Session')) }),
      handle: async ({ ctx, params }) => {
        const userId = params.userId!;
        const sessions = await listSessions(ctx, userId);
        const tokens = await userRefreshTokens(ctx, userId);
        return ok({
          sessions: sessions.map((session) => ({
            id: userScopedId(userId, session.sessionId),
            sid: session.sessionId,
            createdAt: iso(session.createdAt),
            lastSeenAt: iso(session.lastSeenAt),
            expiresAt: iso(session.expiresAt),
            clients: [
              ...new Set(
                tokens
                  .filter((token) => token.sessionId === session.sessionId)
                  .map((token) => token.clientId),
              ),
            ],
          })),
        });
      },
    },
    {
      operationId: 'revokeSession',
      method: 'DELETE',
      path: '/sessions/{sessionId}',
      summary: 'End a session',
      description:
        'Ends the session (an `id` from `listUserSessions`): its cookie stops working at once, as `gatehouse.revokeSession` ends it. 404 for an unknown or ended session.',
      errors: [404],
      handle: async ({ ctx, params }) => {
        const parsed = parseUserScopedId(params.sessionId!);
        if (!parsed || !(await revokeSession({ ...ctx, sessions }, parsed.userId, parsed.id)))
          throw notFound('session');
        return { status: 204, action: { target: parsed.id, userId: parsed.userId } };
      },
    },
    {
      operationId: 'listUserGrants',
      method: 'GET',
      path: '/users/{userId}/grants',
      summary: "A user's grants",
      description:
        "The clients the user authorized that can still get tokens (one per grant, from its live refresh token), most recently used first. `id` is what `revokeGrant` takes. Empty when the grant store cannot list a user's grants.",
      response: object({ grants: list(ref('Grant')) }),
      handle: async ({ ctx, params }) => {
        const userId = params.userId!;
        if (typeof ctx.storage.grants.listUserRefreshTokens !== 'function') return ok({ grants: [] });
        const grants = await listGrants(ctx, userId);
        return ok({
          grants: grants.map((grant) => ({
            id: userScopedId(userId, grant.grantId),
            grantId: grant.grantId,
            clientId: grant.clientId,
            ...(grant.clientName === undefined ? {} : { clientName: grant.clientName }),
            scope: grant.scope.join(' '),
            scopes: grant.scope,
            ...(grant.createdAt === undefined ? {} : { createdAt: iso(grant.createdAt) }),
            lastUsedAt: iso(grant.lastUsedAt),
            expiresAt: iso(grant.expiresAt),
          })),
        });
      },
    },
    {
      operationId: 'revokeGrant',
      method: 'DELETE',
      path: '/grants/{grantId}',
      summary: 'Revoke a grant',
      description:
        "Revokes the grant (an `id` from `listUserGrants`) as `gatehouse.revokeGrant` does: its refresh tokens and codes stop working at once, its access tokens at the bearer check (and, with pushed revocations, from each process's mirror), and the user's consent to its client is forgotten. 404 for an unknown grant.",
      errors: [404],
      handle: async ({ ctx, params }) => {
        const parsed = parseUserScopedId(params.grantId!);
        if (!parsed || typeof ctx.storage.grants.listUserRefreshTokens !== 'function')
          throw notFound('grant');
        if (!(await revokeUserGrant(ctx, parsed.userId, parsed.id))) throw notFound('grant');
        return { status: 204, action: { target: parsed.id, userId: parsed.userId } };
      },
    },
    {
      operationId: 'revokeUser',
      method: 'POST',
      path: '/users/{userId}/revoke',
      summary: 'Revoke everything of a user',
      description:
        'As `gatehouse.revokeUser(userId, { reason: "admin" })`: every token, code, session and consent issued to the user so far stops working, on every instance sharing the store. Answers how many sessions and grants were live.',
      response: object({
        sessions: { type: 'integer', minimum: 0 },
        grants: { type: 'integer', minimum: 0 },
      }),
      handle: async ({ ctx, params }) => {
        const userId = params.userId!;
        const liveSessions = (await listSessions(ctx, userId)).length;
        const grants =
          typeof ctx.storage.grants.listUserRefreshTokens === 'function'
            ? (await listGrants(ctx, userId)).length
            : 0;
        await revokeUser({ ...ctx, sessions }, userId, { reason: 'admin' });
        return ok({ sessions: liveSessions, grants }, { target: userId, userId });
      },
    },
    {
      operationId: 'readAudit',
      method: 'GET',
      path: '/audit',
      summary: 'Recent audit records',
      description: `This process's most recent audit records (the newest ${AUDIT_RECORDS} of the instance's events), newest first, filtered. For the whole trail, use the \`audit\` option's sinks.`,
      query: [
        textParameter('type', 'Only records of this event type (`login.failed`, `admin.action`, …).'),
        textParameter('subject', 'Only records of this subject (a user id, or a client acting for itself).'),
        textParameter('clientId', 'Only records of this client.'),
        {
          name: 'since',
          description: 'Only records at or after this instant (ISO 8601, or epoch milliseconds).',
          schema: { type: 'string', maxLength: 64 },
        },
        {
          name: 'limit',
          description: `At most this many records (1 to ${MAX_AUDIT_LIMIT}, default 50).`,
          schema: { type: 'integer', minimum: 1, maximum: MAX_AUDIT_LIMIT, default: 50 },
        },
      ],
      response: object({ records: list(ref('AuditRecord')) }),
      handle: async ({ query }) => {
        const limitText = queryValue(query, 'limit') ?? '50';
        const limit = Number(limitText);
        if (!/^\d+$/.test(limitText) || limit < 1 || limit > MAX_AUDIT_LIMIT)
          throw oauthError('invalid_request', `limit: expected a whole number from 1 to ${MAX_AUDIT_LIMIT}.`);
        const sinceText = queryValue(query, 'since');
        const since =
          sinceText === undefined
            ? undefined
            : /^\d+$/.test(sinceText)
              ? Number(sinceText)
              : Date.parse(sinceText);
        if (since !== undefined && !Number.isFinite(since))
          throw oauthError('invalid_request', 'since: expected an ISO 8601 instant or epoch milliseconds.');
        const type = queryValue(query, 'type');
        const subject = queryValue(query, 'subject');
        const clientId = queryValue(query, 'clientId');
        return ok({
          records: settings.recorder.audit({
            ...(type === undefined ? {} : { type }),
            ...(subject === undefined ? {} : { subject }),
            ...(clientId === undefined ? {} : { clientId }),
            ...(since === undefined ? {} : { since }),
            limit,
          }),
        });
      },
    },
  ];
}

/** The user's live refresh tokens (for the clients of each session); none without the listing. */
async function userRefreshTokens(ctx: Pick<Context, 'storage' | 'clock'>, userId: string) {
  const listing = ctx.storage.grants.listUserRefreshTokens;
  if (typeof listing !== 'function') return [];
  const tokens = await listing.call(ctx.storage.grants, userId, ctx.clock.now());
  return tokens.filter((token) => token.subject.kind === 'user' && token.subject.userId === userId);
}

function registeredClient(registration: RegisteredClient) {
  const { client } = registration;
  // The source dynamic registration and metadata documents write in `ext` (registration-record.ts).
  const source = (registration.ext as { readonly source?: unknown } | undefined)?.source;
  return {
    clientId: client.id,
    ...(client.name === undefined ? {} : { name: client.name }),
    selfRegistered: true,
    origin: source === 'client_id_metadata_document' ? 'metadata-document' : 'dynamic-registration',
    type: client.type,
    grantTypes: [...(client.grantTypes ?? ['authorization_code', 'refresh_token'])],
    createdAt: iso(registration.registeredAt),
    ...(registration.usedAt === undefined ? {} : { lastUsedAt: iso(registration.usedAt) }),
    ...(registration.expiresAt === undefined ? {} : { expiresAt: iso(registration.expiresAt) }),
  };
}

function hostClient(client: ClientRecord) {
  return {
    clientId: client.id,
    ...(client.name === undefined ? {} : { name: client.name }),
    selfRegistered: false,
    origin: 'host',
    type: client.type,
    grantTypes: [...(client.grantTypes ?? ['authorization_code', 'refresh_token'])],
  };
}
