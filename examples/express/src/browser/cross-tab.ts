/**
 * Test page (`/cross-tab.html`, not linked from the demo) for the cross-tab refresh test: a
 * `demo-spa` client whose tokens live in `localStorage`, shared by every tab of the origin, so that
 * several tabs hold the same refresh token. `?locks=off` builds the client without Web Locks, to
 * show what the lock prevents. Exposes `window.gatehouseTest` for the test to drive.
 */
import {
  createClient,
  type GatehouseClient,
  localStorageTokenStore,
  sessionStorageTransactionStore,
} from '@gatehousejs/client';

const TOKENS_KEY = 'gatehouse.cross-tab.tokens';

/** What one `client.fetch` of the tickets API ended with. */
interface TicketsOutcome {
  readonly status: number;
  readonly tickets: number;
  readonly error?: string;
}

/** The handle the cross-tab test drives the page through. */
export interface GatehouseTestPage {
  readonly client: GatehouseClient;
  /** Whether the client refreshes under a Web Lock (`navigator.locks`). */
  readonly locks: boolean;
  /** Completes a sign-in this page started; the demo's `/callback` page leaves such a callback alone. */
  handleCallback(url: string): Promise<void>;
  /** Moves the stored access token's expiry into the past (as if the page had been idle). */
  expireTokens(): void;
  /** The stored access token, or `null`. */
  accessToken(): string | null;
  /** Waits until `startAt` (Unix ms), then sends `count` concurrent ticket requests. */
  ticketsAt(startAt: number, count: number): Promise<TicketsOutcome[]>;
}

const locks = new URLSearchParams(location.search).get('locks') !== 'off';

const client = createClient({
  baseUrl: `${location.origin}/demo`,
  clientId: 'demo-spa',
  redirectUri: `${location.origin}/callback`,
  mode: 'oauth',
  tokenStore: localStorageTokenStore(TOKENS_KEY),
  // Its own prefix: the demo's callback page must not find (and complete) this page's sign-in.
  transactionStore: sessionStorageTransactionStore('gatehouse.cross-tab.tx.'),
  ...(locks ? {} : { locks: null }),
});

async function tickets(): Promise<TicketsOutcome> {
  try {
    const response = await client.fetch('api/v1/tickets', {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', Accept: 'application/json' },
      body: JSON.stringify({ limit: 1 }),
    });
    const body = (await response.json().catch(() => ({}))) as { tickets?: unknown[]; error?: string };
    return {
      status: response.status,
      tickets: body.tickets?.length ?? 0,
      ...(body.error ? { error: body.error } : {}),
    };
  } catch (error) {
    const code = (error as { code?: string }).code;
    return { status: 0, tickets: 0, error: code ?? String(error) };
  }
}

const page: GatehouseTestPage = {
  client,
  locks,
  async handleCallback(url) {
    await client.handleCallback(url);
  },
  expireTokens() {
    const raw = localStorage.getItem(TOKENS_KEY);
    if (raw === null) throw new Error('no stored tokens to expire');
    const tokens = JSON.parse(raw) as { expiresAt: number };
    localStorage.setItem(
      TOKENS_KEY,
      JSON.stringify({ ...tokens, expiresAt: Math.floor(Date.now() / 1000) - 60 }),
    );
  },
  accessToken() {
    const raw = localStorage.getItem(TOKENS_KEY);
    return raw === null ? null : (JSON.parse(raw) as { accessToken: string }).accessToken;
  },
  async ticketsAt(startAt, count) {
    await new Promise((resolve) => setTimeout(resolve, Math.max(0, startAt - Date.now())));
    return Promise.all(Array.from({ length: count }, tickets));
  },
};

(window as unknown as { gatehouseTest: GatehouseTestPage }).gatehouseTest = page;
document.body.dataset.ready = 'yes';
