import { type ChartSeries, keyTimeline, seriesTotal, stackedBarChart } from './console-charts.js';
import { timeElement } from './dates.js';
import { displayText } from './display-text.js';
import { escapeHtml } from './escape.js';
import { documentShell, hiddenInputs } from './layout.js';
import { fillTemplate } from './messages.js';
import type { PageTexts } from './types.js';

/*
 * The operations console's pages (`{base}/admin/`), built-in only, server-rendered: no script, no
 * external asset (the pages' strict CSP), every form a POST with its CSRF token, every control
 * labelled, the sections a `<nav>` with `aria-current`, tables with captions and header cells.
 * Their contract (browsers and tests drive them): each action is a form whose submit button says
 * what it does ("Rotate keys", "Revoke", "Delete", …) followed, for a row's button, by what it acts
 * on (visually hidden); notices are `role="status"`, errors `role="alert"`.
 */

/** The console's sections. */
export type ConsoleSection = 'overview' | 'keys' | 'clients' | 'users' | 'audit';

/** A message above the section: a catalog text with its values (raw; escaped here). */
export interface ConsoleNotice {
  readonly text: keyof PageTexts;
  readonly values?: Readonly<Record<string, string>>;
  readonly error?: boolean;
}

/** What every console page has: where it is, who is signed in, the forms' CSRF token. */
export interface ConsoleFrame {
  /** `{base}/admin`: the console's path (links and form actions are below it). */
  readonly base: string;
  readonly section: ConsoleSection;
  readonly csrfToken: string;
  readonly username?: string;
  readonly notice?: ConsoleNotice;
  readonly texts: PageTexts;
  readonly locale: string;
}

const CONSOLE_STYLE = `
body{align-items:flex-start}
main.console{max-width:1100px;padding:24px}
.console-head{display:flex;justify-content:space-between;align-items:center;gap:12px;flex-wrap:wrap;margin-bottom:12px}
.console-head p{margin:0}
.console-head form button{width:auto;margin:0;padding:6px 12px;background:#e4e7eb;color:#1f2933}
nav.sections ul{display:flex;flex-wrap:wrap;gap:6px;list-style:none;padding:0;margin:0 0 16px}
nav.sections a{display:block;padding:6px 12px;border-radius:8px;color:#1f2933;text-decoration:none;background:#f0f4f8}
nav.sections a[aria-current=page]{background:#2563eb;color:#fff}
a:focus,input:focus,select:focus{outline:3px solid #9ec5fe;outline-offset:1px}
h2{font-size:1.1rem;margin:24px 0 8px}
table{width:100%;border-collapse:collapse;margin:8px 0 20px;font-size:.9rem}
caption{text-align:left;font-weight:600;padding:4px 0}
th,td{text-align:left;padding:6px 8px;border-bottom:1px solid #e4e7eb;vertical-align:top}
td form{display:inline}
td button,.inline button{width:auto;margin:0;padding:5px 10px;font-size:.85rem}
button.danger{background:#b91c1c}button.danger:hover{background:#991b1b}
form.inline{display:flex;flex-wrap:wrap;gap:12px;align-items:flex-end;margin:8px 0 16px}
form.inline label{margin:0 0 4px}
form.inline input[type=text],form.inline input[type=search],form.inline input[type=number]{width:auto;min-width:12em}
label.check{display:flex;gap:8px;align-items:flex-start;font-weight:400}
label.check input{margin-top:5px}
input[type=search],input[type=number]{padding:10px 12px;font:inherit;border:1px solid #cbd2d9;border-radius:8px}
.badge{display:inline-block;padding:1px 8px;border-radius:10px;font-size:.8rem;background:#f0f4f8}
.badge.signing{background:#dcfce7;color:#14532d}.badge.next{background:#dbeafe;color:#1e3a8a}
.badge.retired{background:#f3f4f6;color:#374151}.badge.revoked{background:#fee2e2;color:#7f1d1d}
.badge.self{background:#fef3c7;color:#78350f}
svg.chart{display:block;width:100%;height:auto;max-width:720px}
ul.legend{list-style:none;padding:0;margin:4px 0 16px;display:flex;flex-wrap:wrap;gap:14px;font-size:.85rem}
.notice{padding:10px 12px;border-radius:8px;background:#e6f4ea;color:#14532d;margin:0 0 12px}
.alert{margin:0 0 12px}
.grid{display:grid;grid-template-columns:repeat(auto-fit,minmax(320px,1fr));gap:16px}
dl{display:grid;grid-template-columns:max-content 1fr;gap:4px 12px;margin:0 0 12px}dt{font-weight:600}dd{margin:0}
`;

const SECTIONS: readonly { section: ConsoleSection; path: string; text: keyof PageTexts }[] = [
  { section: 'overview', path: '/', text: 'consoleOverview' },
  { section: 'keys', path: '/keys', text: 'consoleKeys' },
  { section: 'clients', path: '/clients', text: 'consoleClients' },
  { section: 'users', path: '/users', text: 'consoleUsers' },
  { section: 'audit', path: '/audit', text: 'consoleAudit' },
];

const esc = escapeHtml;

function fill(template: string, values: Readonly<Record<string, string>> = {}): string {
  const escaped = Object.fromEntries(Object.entries(values).map(([k, v]) => [k, esc(displayText(v))]));
  return fillTemplate(template, escaped, esc);
}

/** A POST form of the console: its action, CSRF token and fields, and one submit button. */
export function actionForm(
  frame: ConsoleFrame,
  path: string,
  fields: Readonly<Record<string, string>>,
  button: string,
  options: { target?: string; danger?: boolean; extra?: string } = {},
): string {
  const target = options.target ? `<span class="vh"> ${esc(displayText(options.target))}</span>` : '';
  return `<form method="post" action="${esc(frame.base + path)}">${hiddenInputs({ csrf_token: frame.csrfToken, ...fields })}${options.extra ?? ''}<button type="submit"${options.danger ? ' class="danger"' : ''}>${esc(button)}${target}</button></form>`;
}

/** A whole console page: header (who, sign-out), sections, notice, then `body`. */
export function consoleDocument(frame: ConsoleFrame, title: string, body: string): string {
  const { texts } = frame;
  const nav = SECTIONS.map(
    (s) =>
      `<li><a href="${esc(frame.base + s.path)}"${s.section === frame.section ? ' aria-current="page"' : ''}>${esc(texts[s.text] as string)}</a></li>`,
  ).join('');
  const who = frame.username
    ? `<p class="muted">${fill(texts.consoleSignedInAs, { user: frame.username })}</p>`
    : '';
  const notice = frame.notice
    ? frame.notice.error
      ? `<div class="alert" role="alert">${fill(texts[frame.notice.text] as string, frame.notice.values)}</div>`
      : `<div class="notice" role="status">${fill(texts[frame.notice.text] as string, frame.notice.values)}</div>`
    : '';
  return documentShell(
    `${title} · ${texts.consoleTitle}`,
    `<header class="console-head">
<div><p class="muted">${esc(texts.consoleTitle)}</p><h1>${esc(title)}</h1></div>
<div>${who}${actionForm(frame, '/signout', {}, texts.consoleSignOut)}</div>
</header>
<nav class="sections" aria-label="${esc(texts.consoleNav)}"><ul>${nav}</ul></nav>
${notice}
${body}`,
    texts,
    frame.locale,
    { style: CONSOLE_STYLE, mainClass: 'console' },
  );
}

/** What the overview shows. */
export interface OverviewView {
  readonly health?: {
    readonly status?: string;
    readonly reachable?: boolean;
    readonly latencyMs?: number;
    readonly lagMs?: number | null;
    readonly signingKid?: string;
  };
  readonly tokens: readonly ChartSeries[];
  readonly refusals: readonly ChartSeries[];
}

function chart(frame: ConsoleFrame, id: string, title: string, series: readonly ChartSeries[]): string {
  const { texts } = frame;
  const total = series.reduce((sum, s) => sum + seriesTotal(s), 0);
  if (total === 0) return `<h2 id="${id}-h">${esc(title)}</h2><p>${esc(texts.consoleNoData)}</p>`;
  const description = fillTemplate(
    texts.consoleChartTotal,
    { total: String(total), parts: series.map((s) => `${s.name} ${seriesTotal(s)}`).join(', ') },
    (text) => text,
  );
  return `<h2 id="${id}-h">${esc(title)}</h2>
${stackedBarChart({ id, title, description, series, axis: ['−60 min', '−30 min', texts.consoleNow] })}`;
}

/** The overview: health, and the charts of the last hour. */
export function overviewBody(frame: ConsoleFrame, view: OverviewView): string {
  const { texts } = frame;
  const health = view.health;
  const healthBlock =
    health === undefined
      ? ''
      : `<h2>${esc(texts.consoleHealth)}</h2>
<p>${esc(health.status === 'ok' ? texts.consoleStatusOk : texts.consoleStatusDegraded)}</p>
<dl>
<dt>${esc(texts.consoleEngine)}</dt><dd>${
          health.reachable
            ? fill(texts.consoleReachable, { ms: String(health.latencyMs ?? '?') })
            : esc(texts.consoleUnreachable)
        }</dd>
<dt>${esc(texts.consoleRevocationLag)}</dt><dd>${
          health.lagMs === null || health.lagMs === undefined
            ? esc(texts.consoleNotUsed)
            : `${esc(health.lagMs)} ms`
        }</dd>
<dt>${esc(texts.consoleSigningKey)}</dt><dd><code>${esc(health.signingKid ?? '?')}</code></dd>
</dl>`;
  return `${healthBlock}
<div class="grid">
<section aria-labelledby="tokens-chart-h">${chart(frame, 'tokens-chart', texts.consoleTokensChart, view.tokens)}</section>
<section aria-labelledby="refusals-chart-h">${chart(frame, 'refusals-chart', texts.consoleRefusalsChart, view.refusals)}</section>
</div>`;
}

/** One key as the keys section shows it. */
export interface KeyView {
  readonly kid: string;
  readonly alg?: string;
  readonly state: string;
  /** A stored key not revoked yet (a key of the `keys` option changes by configuration only). */
  readonly revocable: boolean;
  readonly since?: number;
  readonly until?: number;
}

/** What the keys section shows. */
export interface KeysView {
  readonly keys: readonly KeyView[];
  /** Why each algorithm's signing key is the one it is. */
  readonly why: readonly { readonly kid: string; readonly alg: string; readonly why: string }[];
  readonly cost?: string;
  readonly now: number;
}

const STATE_TEXT: Readonly<Record<string, keyof PageTexts>> = {
  next: 'consoleStateNext',
  signing: 'consoleStateSigning',
  retired: 'consoleStateRetired',
  revoked: 'consoleStateRevoked',
};

function stateLabel(texts: PageTexts, state: string): string {
  const key = STATE_TEXT[state];
  return key === undefined ? state : (texts[key] as string);
}

/** The keys: why the signing key signs, the timeline, the table with revoke buttons, rotation. */
export function keysBody(frame: ConsoleFrame, view: KeysView): string {
  const { texts, locale } = frame;
  const why =
    view.why.length === 0
      ? ''
      : `<p><strong>${esc(texts.consoleWhy)}</strong></p><ul>${view.why
          .map((w) => `<li>${esc(w.alg)} <code>${esc(w.kid)}</code>: ${esc(w.why)}</li>`)
          .join('')}</ul>`;
  const cost = view.cost ? `<p class="muted">${esc(view.cost)}</p>` : '';
  const timelineKeys = view.keys.map((key) => ({
    kid: key.kid,
    state: key.state,
    stateLabel: stateLabel(texts, key.state),
    ...(key.since === undefined ? {} : { since: key.since }),
    ...(key.until === undefined ? {} : { until: key.until }),
  }));
  const description = view.keys.map((key) => `${key.kid}: ${stateLabel(texts, key.state)}`).join('; ');
  const rows = view.keys
    .map(
      (key) => `<tr>
<td><code>${esc(key.kid)}</code></td>
<td>${esc(key.alg ?? '')}</td>
<td><span class="badge ${esc(key.state)}">${esc(stateLabel(texts, key.state))}</span></td>
<td>${timeElement(key.since, locale)}</td>
<td>${timeElement(key.until, locale)}</td>
<td>${
        !key.revocable
          ? ''
          : actionForm(frame, '/keys/revoke', { kid: key.kid }, texts.consoleRevoke, {
              target: key.kid,
              danger: true,
            })
      }</td>
</tr>`,
    )
    .join('\n');
  return `${why}
<h2 id="timeline-h">${esc(texts.consoleTimeline)}</h2>
${keyTimeline({ id: 'timeline', title: texts.consoleTimeline, description, keys: timelineKeys, now: view.now, nowLabel: texts.consoleNow })}
<table>
<caption>${esc(texts.consoleKeys)}</caption>
<thead><tr><th scope="col">${esc(texts.consoleKid)}</th><th scope="col">${esc(texts.consoleAlgorithm)}</th><th scope="col">${esc(texts.consoleState)}</th><th scope="col">${esc(texts.consoleSince)}</th><th scope="col">${esc(texts.consoleUntil)}</th><th scope="col">${esc(texts.consoleActions)}</th></tr></thead>
<tbody>
${rows}
</tbody>
</table>
${cost}
${actionForm(frame, '/keys/rotate', {}, texts.consoleRotate, {
  extra: `<label class="check"><input type="checkbox" name="now" value="true"> <span>${esc(texts.consoleRotateNow)}</span></label>`,
})}`;
}

/** One client as the clients section shows it. */
export interface ClientView {
  readonly clientId: string;
  readonly name?: string;
  readonly selfRegistered: boolean;
  readonly origin?: string;
  readonly grantTypes: readonly string[];
  readonly createdAt?: number;
}

/** The clients: self-registered ones marked with where they came from, and deletable. */
export function clientsBody(frame: ConsoleFrame, clients: readonly ClientView[]): string {
  const { texts, locale } = frame;
  const rows = clients
    .map(
      (client) => `<tr>
<td><code>${esc(client.clientId)}</code></td>
<td><bdi>${esc(displayText(client.name ?? ''))}</bdi></td>
<td>${
        client.selfRegistered
          ? `<span class="badge self">${esc(texts.consoleSelfRegistered)}</span> ${esc(client.origin ?? '')}`
          : esc(texts.consoleHostClient)
      }</td>
<td>${esc(client.grantTypes.join(', '))}</td>
<td>${timeElement(client.createdAt, locale)}</td>
<td>${
        client.selfRegistered
          ? actionForm(frame, '/clients/delete', { client_id: client.clientId }, texts.consoleDelete, {
              target: client.clientId,
              danger: true,
            })
          : ''
      }</td>
</tr>`,
    )
    .join('\n');
  return `<table>
<caption>${esc(texts.consoleClients)}</caption>
<thead><tr><th scope="col">${esc(texts.consoleClientId)}</th><th scope="col">${esc(texts.consoleName)}</th><th scope="col">${esc(texts.consoleOrigin)}</th><th scope="col">${esc(texts.consoleGrantTypes)}</th><th scope="col">${esc(texts.consoleCreated)}</th><th scope="col">${esc(texts.consoleActions)}</th></tr></thead>
<tbody>
${rows}
</tbody>
</table>`;
}

/** What the users section shows: the search, its results, and one user's sessions and grants. */
export interface UsersView {
  readonly query: string;
  readonly users?: readonly { readonly id: string; readonly username?: string; readonly name?: string }[];
  readonly selected?: {
    readonly id: string;
    readonly sessions: readonly {
      readonly id: string;
      readonly createdAt?: number;
      readonly lastSeenAt?: number;
      readonly expiresAt?: number;
      readonly clients: readonly string[];
    }[];
    readonly grants: readonly {
      readonly id: string;
      readonly clientId: string;
      readonly scope: string;
      readonly createdAt?: number;
      readonly lastUsedAt?: number;
      readonly expiresAt?: number;
    }[];
  };
}

/** The users: search, results, and the selected user's sessions and grants with revoke buttons. */
export function usersBody(frame: ConsoleFrame, view: UsersView): string {
  const { texts, locale } = frame;
  const search = `<form class="inline" method="get" action="${esc(`${frame.base}/users`)}" role="search">
<div><label for="q">${esc(texts.consoleSearchLabel)}</label><input type="search" id="q" name="q" value="${esc(view.query)}" maxlength="256" autocomplete="off"></div>
<button type="submit">${esc(texts.consoleSearch)}</button>
</form>`;
  const results =
    view.users === undefined
      ? ''
      : view.users.length === 0
        ? `<p>${esc(texts.consoleNoUsers)}</p>`
        : `<ul>${view.users
            .map(
              (user) =>
                `<li><a href="${esc(`${frame.base}/users?${new URLSearchParams({ q: view.query, user: user.id })}`)}"><bdi>${esc(displayText(user.username ?? user.id))}</bdi></a> <code>${esc(user.id)}</code>${user.name ? ` — <bdi>${esc(displayText(user.name))}</bdi>` : ''}</li>`,
            )
            .join('')}</ul>`;
  const selected = view.selected;
  if (selected === undefined) return `${search}\n${results}`;
  const back = { user: selected.id, q: view.query };
  const sessions =
    selected.sessions.length === 0
      ? `<p>${esc(texts.consoleNoSessions)}</p>`
      : `<table>
<caption class="vh">${esc(texts.consoleSessions)}</caption>
<thead><tr><th scope="col">id</th><th scope="col">${esc(texts.consoleCreated)}</th><th scope="col">${esc(texts.consoleLastSeen)}</th><th scope="col">${esc(texts.consoleEnds)}</th><th scope="col">${esc(texts.consoleClients)}</th><th scope="col">${esc(texts.consoleActions)}</th></tr></thead>
<tbody>
${selected.sessions
  .map(
    (session) =>
      `<tr><td><code>${esc(session.id)}</code></td><td>${timeElement(session.createdAt, locale)}</td><td>${timeElement(session.lastSeenAt, locale)}</td><td>${timeElement(session.expiresAt, locale)}</td><td>${esc(session.clients.join(', '))}</td><td>${actionForm(frame, '/sessions/revoke', { session_id: session.id, ...back }, texts.consoleRevoke, { target: session.id, danger: true })}</td></tr>`,
  )
  .join('\n')}
</tbody>
</table>`;
  const grants =
    selected.grants.length === 0
      ? `<p>${esc(texts.consoleNoGrants)}</p>`
      : `<table>
<caption class="vh">${esc(texts.consoleGrants)}</caption>
<thead><tr><th scope="col">id</th><th scope="col">${esc(texts.consoleClientId)}</th><th scope="col">${esc(texts.consoleScope)}</th><th scope="col">${esc(texts.consoleCreated)}</th><th scope="col">${esc(texts.consoleLastUsed)}</th><th scope="col">${esc(texts.consoleEnds)}</th><th scope="col">${esc(texts.consoleActions)}</th></tr></thead>
<tbody>
${selected.grants
  .map(
    (grant) =>
      `<tr><td><code>${esc(grant.id)}</code></td><td><code>${esc(grant.clientId)}</code></td><td>${esc(grant.scope)}</td><td>${timeElement(grant.createdAt, locale)}</td><td>${timeElement(grant.lastUsedAt, locale)}</td><td>${timeElement(grant.expiresAt, locale)}</td><td>${actionForm(frame, '/grants/revoke', { grant_id: grant.id, ...back }, texts.consoleRevoke, { target: `${grant.clientId} ${grant.id}`, danger: true })}</td></tr>`,
  )
  .join('\n')}
</tbody>
</table>`;
  return `${search}
${results}
<section aria-labelledby="user-h">
<h2 id="user-h">${fill(texts.consoleUser, { user: selected.id })}</h2>
<h3>${esc(texts.consoleSessions)}</h3>
${sessions}
<h3>${esc(texts.consoleGrants)}</h3>
${grants}
${actionForm(frame, '/users/revoke', back, texts.consoleRevokeUser, { danger: true })}
</section>`;
}

/** What the audit section shows: its filters and the matching records, newest first. */
export interface AuditView {
  readonly filters: {
    readonly type: string;
    readonly subject: string;
    readonly clientId: string;
    readonly limit: string;
  };
  readonly records: readonly {
    readonly time?: number;
    readonly type: string;
    readonly outcome: string;
    readonly subject: string;
    readonly clientId: string;
    readonly details: string;
  }[];
}

/** The audit trail: the filter form (GET) and the records. */
export function auditBody(frame: ConsoleFrame, view: AuditView): string {
  const { texts, locale } = frame;
  const field = (id: string, label: string, value: string, type = 'text', extra = '') =>
    `<div><label for="${id}">${esc(label)}</label><input type="${type}" id="${id}" name="${id}" value="${esc(value)}" maxlength="256"${extra}></div>`;
  const filters = `<form class="inline" method="get" action="${esc(`${frame.base}/audit`)}">
${field('type', texts.consoleEventType, view.filters.type)}
${field('subject', texts.consoleSubject, view.filters.subject)}
${field('clientId', texts.consoleClientId, view.filters.clientId)}
${field('limit', texts.consoleLimit, view.filters.limit, 'number', ' min="1" max="500"')}
<button type="submit">${esc(texts.consoleFilter)}</button>
</form>`;
  if (view.records.length === 0) return `${filters}\n<p>${esc(texts.consoleNoRecords)}</p>`;
  const rows = view.records
    .map(
      (record) =>
        `<tr><td>${timeElement(record.time, locale)}</td><td><code>${esc(record.type)}</code></td><td>${esc(record.outcome)}</td><td>${esc(record.subject)}</td><td>${esc(record.clientId)}</td><td>${esc(record.details)}</td></tr>`,
    )
    .join('\n');
  return `${filters}
<table>
<caption>${esc(texts.consoleAudit)}</caption>
<thead><tr><th scope="col">${esc(texts.consoleTime)}</th><th scope="col">${esc(texts.consoleEventType)}</th><th scope="col">${esc(texts.consoleOutcome)}</th><th scope="col">${esc(texts.consoleSubject)}</th><th scope="col">${esc(texts.consoleClientId)}</th><th scope="col">${esc(texts.consoleDetails)}</th></tr></thead>
<tbody>
${rows}
</tbody>
</table>`;
}

/** The page of a signed-in user the host does not let use the console: why, and the way out. */
export function refusedDocument(frame: Omit<ConsoleFrame, 'section'>, logoutPath: string): string {
  const { texts } = frame;
  return documentShell(
    texts.consoleTitle,
    `<h1>${esc(texts.consoleTitle)}</h1>
<div class="alert" role="alert">${esc(texts.consoleRefused)}</div>
${frame.username ? `<p class="muted">${fill(texts.consoleSignedInAs, { user: frame.username })}</p>` : ''}
<p><a href="${esc(logoutPath)}">${esc(texts.consoleSignOut)}</a></p>`,
    texts,
    frame.locale,
  );
}
