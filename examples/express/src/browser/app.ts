/**
 * The demo's browser app (served at `/` and `/callback`): a public client (`demo-spa`) that signs
 * in with the code flow and PKCE through `@gatehousejs/client`, shows who is signed in and when the
 * token expires, lists tickets with the bearer token and with the session cookie, refreshes and
 * signs out. No framework; every value reaches the page through `textContent`, never as HTML.
 */
import {
  createClient,
  type GatehouseClient,
  isGatehouseClientError,
  localStorageTokenStore,
} from '@gatehousejs/client';

const INSTANCE_PATH = '/demo';
const SCOPE = 'openid profile tickets:read offline_access';

/** Tokens live in this tab's sessionStorage: they survive the callback and reloads, not the tab. */
const client: GatehouseClient = createClient({
  baseUrl: location.origin + INSTANCE_PATH,
  clientId: 'demo-spa',
  redirectUri: `${location.origin}/callback`,
  tokenStore: localStorageTokenStore('gatehouse.demo.tokens', sessionStorage),
});

const $ = <T extends HTMLElement>(id: string): T => {
  const element = document.getElementById(id);
  if (!element) throw new Error(`missing #${id}`);
  return element as T;
};

function describeError(error: unknown): string {
  if (isGatehouseClientError(error)) {
    return `${error.code}${error.error ? ` (${error.error})` : ''}: ${error.errorDescription ?? error.message}`;
  }
  return error instanceof Error ? error.message : String(error);
}

function show(message: string, kind: 'info' | 'error' = 'info'): void {
  const status = $('message');
  status.textContent = message;
  status.dataset.kind = kind;
}

let actionsDone = 0;

/**
 * Runs a button's action with the buttons disabled, and shows its failure. `data-actions` on the
 * body counts finished actions, so that tests can wait for one to complete.
 */
async function act(action: () => Promise<void>): Promise<void> {
  const buttons = [...document.querySelectorAll('button')];
  for (const button of buttons) button.disabled = true;
  show('');
  try {
    await action();
  } catch (error) {
    show(describeError(error), 'error');
  } finally {
    for (const button of buttons) button.disabled = false;
    await render();
    actionsDone += 1;
    document.body.dataset.actions = String(actionsDone);
  }
}

async function render(): Promise<void> {
  const [tokens, session] = await Promise.all([client.getTokens(), client.checkSession().catch(() => null)]);
  $('who').textContent = session ? session.sub : 'nobody (no session)';
  if (tokens) {
    const expires = new Date(tokens.expiresAt * 1000);
    $('expires').textContent =
      `${expires.toLocaleTimeString()} (in ${tokens.expiresAt - Math.floor(Date.now() / 1000)} s)`;
    $('token-id').textContent = `…${tokens.accessToken.slice(-8)}`;
  } else {
    $('expires').textContent = 'no token';
    $('token-id').textContent = '—';
  }
  document.body.dataset.signedIn = tokens ? 'yes' : 'no';
}

interface Ticket {
  readonly id?: unknown;
  readonly title?: unknown;
  readonly subject?: unknown;
  readonly status?: unknown;
}

async function listTickets(auth: 'oauth' | 'session'): Promise<void> {
  const response = await client.fetch('api/v1/tickets', {
    auth,
    method: 'POST',
    headers: { 'Content-Type': 'application/json', Accept: 'application/json' },
    body: JSON.stringify({ limit: 5 }),
  });
  const body = (await response.json().catch(() => ({}))) as {
    tickets?: Ticket[];
    error?: string;
    error_description?: string;
  };
  const list = $('tickets');
  list.replaceChildren();
  $('tickets-mode').textContent =
    auth === 'oauth' ? 'bearer token (oauth mode)' : 'session cookie (session mode)';
  if (!response.ok) {
    show(
      `Tickets (${auth}): ${response.status} ${body.error ?? ''} ${body.error_description ?? ''}`.trim(),
      'error',
    );
    return;
  }
  for (const ticket of body.tickets ?? []) {
    const item = document.createElement('li');
    item.textContent = `#${String(ticket.id ?? '?')} ${String(ticket.title ?? ticket.subject ?? '')}${ticket.status ? ` [${String(ticket.status)}]` : ''}`;
    list.append(item);
  }
  show(
    `${body.tickets?.length ?? 0} tickets listed with the ${auth === 'oauth' ? 'bearer token' : 'session cookie'}.`,
  );
}

async function main(): Promise<void> {
  if (document.body.dataset.page === 'callback') {
    await callback();
    return;
  }
  $('sign-in').addEventListener('click', () =>
    act(async () => {
      location.assign((await client.authorizationUrl({ scope: SCOPE })).href);
    }),
  );
  $('tickets-oauth').addEventListener('click', () => act(() => listTickets('oauth')));
  $('tickets-session').addEventListener('click', () => act(() => listTickets('session')));
  $('refresh').addEventListener('click', () =>
    act(async () => {
      await client.refresh();
      show('Token refreshed.');
    }),
  );
  $('sign-out').addEventListener('click', () =>
    act(async () => {
      await client.logout();
      $('tickets').replaceChildren();
      show('Signed out: tokens revoked, session ended.');
    }),
  );
  const notice = sessionStorage.getItem('gatehouse.demo.notice');
  sessionStorage.removeItem('gatehouse.demo.notice');
  if (notice) show(notice);
  await render();
  document.body.dataset.ready = 'yes';
}

/**
 * `/callback`: completes a sign-in this tab started. A callback that is not ours (e.g. a code for
 * the confidential `demo-client`, fetched with curl) is shown as it came, so it can be copied.
 */
async function callback(): Promise<void> {
  const params = new URLSearchParams(location.search);
  try {
    await client.handleCallback(location.href);
    sessionStorage.setItem('gatehouse.demo.notice', 'Signed in.');
    location.replace('/');
  } catch (error) {
    if (isGatehouseClientError(error, 'state_mismatch')) {
      $('callback-result').textContent =
        'This callback does not belong to a sign-in started on this page. Its parameters:';
    } else {
      $('callback-result').textContent = `Sign-in failed: ${describeError(error)}`;
    }
    const table = $('callback-params');
    for (const [name, value] of params) {
      const row = document.createElement('tr');
      const key = document.createElement('th');
      key.textContent = name;
      const cell = document.createElement('td');
      const code = document.createElement('code');
      code.textContent = value;
      cell.append(code);
      row.append(key, cell);
      table.append(row);
    }
    document.body.dataset.ready = 'yes';
  }
}

void main();
