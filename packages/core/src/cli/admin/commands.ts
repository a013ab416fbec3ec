import type { AdminArguments } from './arguments.js';
import { UsageProblem } from './arguments.js';
import { column, lines, table } from './tables.js';

/*
 * One `gatehouse admin` command per admin API operation (admin contract, `operationId` in
 * brackets): the request it makes and how its answer is shown as text. Pure: no I/O here.
 */

/** What a command sends: method, path below `{issuer}/admin/v1`, and a JSON body. */
export interface AdminRequest {
  readonly method: 'GET' | 'POST' | 'DELETE';
  readonly path: string;
  readonly body?: unknown;
}

/** A command of `gatehouse admin`. */
export interface AdminCommand {
  /** Its words, e.g. `keys revoke`. */
  readonly name: string;
  /** Its operand, if it takes one (e.g. `<kid>`). */
  readonly operand?: string;
  /** Its own options, for the usage. */
  readonly options?: string;
  readonly summary: string;
  readonly operationId: string;
  request(operand: string, args: AdminArguments): AdminRequest;
  /** The answer as text (not with `--json`). */
  show(body: unknown, operand: string): string;
}

const s = encodeURIComponent;

type Body = Record<string, unknown>;
const list = (body: unknown, name: string): unknown[] => {
  const value = (body as Body | undefined)?.[name];
  return Array.isArray(value) ? value : [];
};

const KEY_COLUMNS = [
  column('kid'),
  column('alg'),
  column('state'),
  column('since', { time: true }),
  column('until', { time: true }),
];

function showKeys(body: unknown): string {
  const { signing, cost } = (body ?? {}) as { signing?: { kid?: unknown; why?: unknown }; cost?: unknown };
  return (
    table(list(body, 'keys'), KEY_COLUMNS) +
    (signing
      ? `\nsigning: ${String(signing.kid ?? '-')}${signing.why ? ` (${String(signing.why)})` : ''}\n`
      : '') +
    (typeof cost === 'string' ? `cost: ${cost}\n` : '')
  );
}

function seriesTotals(series: unknown): [string, number][] {
  if (typeof series !== 'object' || series === null) return [];
  return Object.entries(series as Record<string, unknown>).map(([name, values]) => [
    name,
    Array.isArray(values) ? values.reduce((sum: number, v) => sum + (typeof v === 'number' ? v : 0), 0) : 0,
  ]);
}

/** Every command, in the order of the usage. */
export const ADMIN_COMMANDS: readonly AdminCommand[] = [
  {
    name: 'health',
    summary: 'engine reachable, revocation channel lag, key states',
    operationId: 'health',
    request: () => ({ method: 'GET', path: '/health' }),
    show: (body) => {
      const b = (body ?? {}) as {
        status?: unknown;
        engine?: { reachable?: unknown; latencyMs?: unknown };
        revocations?: { lagMs?: unknown };
        keys?: { signing?: unknown; states?: unknown };
      };
      return lines([
        ['status', b.status],
        ['engine reachable', b.engine?.reachable],
        ['engine latency (ms)', b.engine?.latencyMs],
        ['revocation lag (ms)', b.revocations?.lagMs ?? 'not used'],
        ['signing key', b.keys?.signing],
        ['key states', b.keys?.states],
      ]);
    },
  },
  {
    name: 'metrics',
    summary: 'tokens issued per grant type and refusals by reason, last hour',
    operationId: 'metrics',
    request: () => ({ method: 'GET', path: '/metrics' }),
    show: (body) => {
      const series =
        ((body ?? {}) as { series?: { tokensIssued?: unknown; refusals?: unknown } }).series ?? {};
      const rows = [
        ...seriesTotals(series.tokensIssued).map(([name, total]) => ({
          counter: 'tokens issued',
          name,
          total,
        })),
        ...seriesTotals(series.refusals).map(([name, total]) => ({ counter: 'refusals', name, total })),
      ];
      return table(rows, [column('counter'), column('name'), column('total', { header: 'last hour' })]);
    },
  },
  {
    name: 'keys list',
    summary: 'signing keys: state, since, until, and why the signing key signs',
    operationId: 'listKeys',
    request: () => ({ method: 'GET', path: '/keys' }),
    show: showKeys,
  },
  {
    name: 'keys rotate',
    options: '[--now]',
    summary: 'publish a next key (--now: sign with it at once, and say what that costs)',
    operationId: 'rotateKeys',
    request: (_, args) => ({ method: 'POST', path: '/keys/rotate', body: { now: args.flags.has('now') } }),
    show: showKeys,
  },
  {
    name: 'keys revoke',
    operand: '<kid>',
    summary: 'revoke a key (tokens it signed stop working)',
    operationId: 'revokeKey',
    request: (kid) => ({ method: 'POST', path: `/keys/${s(kid)}/revoke` }),
    show: showKeys,
  },
  {
    name: 'clients list',
    options: '[--self]',
    summary: 'clients (--self: only the self-registered ones), with their origin',
    operationId: 'listClients',
    request: (_, args) => ({
      method: 'GET',
      path: args.flags.has('self') ? '/clients?registered=self' : '/clients',
    }),
    show: (body) =>
      table(list(body, 'clients'), [
        column('clientId', { header: 'client id' }),
        column('name'),
        {
          header: 'registered',
          value: (row) => (row.selfRegistered ? `self (${String(row.origin ?? '?')})` : 'host'),
        },
        column('grantTypes', { header: 'grant types' }),
        column('createdAt', { header: 'created', time: true }),
      ]),
  },
  {
    name: 'clients delete',
    operand: '<clientId>',
    summary: 'delete a self-registered client',
    operationId: 'deleteClient',
    request: (id) => ({ method: 'DELETE', path: `/clients/${s(id)}` }),
    show: (_, id) => `Deleted client ${id}.\n`,
  },
  {
    name: 'users find',
    operand: '<query>',
    summary: 'find users by id or username',
    operationId: 'findUsers',
    request: (q) => ({ method: 'GET', path: `/users?${new URLSearchParams({ q })}` }),
    show: (body) =>
      table(list(body, 'users'), [column('id'), column('username'), column('name')], '(no user found)'),
  },
  {
    name: 'sessions list',
    operand: '<userId>',
    summary: "a user's live sessions",
    operationId: 'listUserSessions',
    request: (id) => ({ method: 'GET', path: `/users/${s(id)}/sessions` }),
    show: (body) =>
      table(list(body, 'sessions'), [
        column('id'),
        column('createdAt', { header: 'created', time: true }),
        column('lastSeenAt', { header: 'last seen', time: true }),
        column('expiresAt', { header: 'ends', time: true }),
        column('clients'),
      ]),
  },
  {
    name: 'sessions revoke',
    operand: '<sessionId>',
    summary: 'end a session',
    operationId: 'revokeSession',
    request: (id) => ({ method: 'DELETE', path: `/sessions/${s(id)}` }),
    show: (_, id) => `Revoked session ${id}.\n`,
  },
  {
    name: 'grants list',
    operand: '<userId>',
    summary: "a user's live grants",
    operationId: 'listUserGrants',
    request: (id) => ({ method: 'GET', path: `/users/${s(id)}/grants` }),
    show: (body) =>
      table(list(body, 'grants'), [
        column('id'),
        column('clientId', { header: 'client id' }),
        column('scope'),
        column('createdAt', { header: 'created', time: true }),
        column('lastUsedAt', { header: 'last used', time: true }),
        column('expiresAt', { header: 'ends', time: true }),
      ]),
  },
  {
    name: 'grants revoke',
    operand: '<grantId>',
    summary: 'revoke a grant (its refresh tokens and access tokens)',
    operationId: 'revokeGrant',
    request: (id) => ({ method: 'DELETE', path: `/grants/${s(id)}` }),
    show: (_, id) => `Revoked grant ${id}.\n`,
  },
  {
    name: 'user revoke',
    operand: '<userId>',
    summary: 'revoke every session and grant of a user',
    operationId: 'revokeUser',
    request: (id) => ({ method: 'POST', path: `/users/${s(id)}/revoke` }),
    show: (body, id) => {
      const b = (body ?? {}) as { sessions?: unknown; grants?: unknown };
      return `Revoked user ${id}: ${String(b.sessions ?? 0)} session(s), ${String(b.grants ?? 0)} grant(s).\n`;
    },
  },
  {
    name: 'audit',
    options: '[--type T] [--subject S] [--client C] [--since TIME] [--limit N]',
    summary: 'recent audit records, newest first',
    operationId: 'readAudit',
    request: (_, args) => {
      const query = new URLSearchParams();
      const filters = {
        type: 'type',
        subject: 'subject',
        client: 'clientId',
        since: 'since',
        limit: 'limit',
      } as const;
      for (const [option, parameter] of Object.entries(filters)) {
        const value = args.options[option];
        if (value !== undefined) query.set(parameter, value);
      }
      return { method: 'GET', path: `/audit${query.toString() === '' ? '' : `?${query}`}` };
    },
    show: (body) =>
      table(
        list(body, 'records'),
        [
          column('time'),
          column('type'),
          { header: 'outcome', value: (row) => [row.outcome, row.reason].filter(Boolean).join(': ') },
          column('subject'),
          column('clientId', { header: 'client id' }),
          {
            header: 'actor',
            value: (row) => {
              const actor = row.actor as { clientId?: unknown; subject?: unknown } | undefined;
              return actor ? [actor.subject, actor.clientId].filter(Boolean).join('@') : undefined;
            },
          },
        ],
        '(no record)',
      ),
  },
];

/** The command `words` name, with its operand; throws {@link UsageProblem} otherwise. */
export function findCommand(words: readonly string[]): { command: AdminCommand; operand: string } {
  for (const command of ADMIN_COMMANDS) {
    const parts = command.name.split(' ');
    if (parts.some((part, i) => words[i] !== part)) continue;
    const rest = words.slice(parts.length);
    if (command.operand === undefined) {
      if (rest.length > 0)
        throw new UsageProblem(`${command.name} takes no operand (got ${rest.join(' ')}).`);
      return { command, operand: '' };
    }
    if (rest.length !== 1 || rest[0] === '')
      throw new UsageProblem(`${command.name} needs exactly one ${command.operand}.`);
    return { command, operand: rest[0]! };
  }
  throw new UsageProblem(`Unknown admin command: ${words.join(' ') || '(none)'}`);
}
