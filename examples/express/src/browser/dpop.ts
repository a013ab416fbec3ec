/**
 * Test page (`/dpop.html`, not linked from the demo) for the DPoP browser test: a `demo-spa`
 * client with `dpop: true` (a non-extractable key in IndexedDB) that pushes its authorization
 * requests. Exposes `window.gatehouseDpop` for the test to drive.
 */
import { createClient, localStorageTokenStore, sessionStorageTransactionStore } from '@gatehousejs/client';

/** What the test reads of the page. */
export interface GatehouseDpopPage {
  /** The pushed authorization URL to navigate to. */
  authorizationUrl(): Promise<string>;
  /** Completes the sign-in this page started. */
  handleCallback(url: string): Promise<{ tokenType: string | undefined; jkt: string | undefined }>;
  /** `client.fetch` of the tickets API: status and ticket count. */
  tickets(): Promise<{ status: number; tickets: number; authorization: string }>;
  /** The stored key: whether it can be exported, and its public key's thumbprint. */
  key(): Promise<{ extractable: boolean; exportRefused: boolean; jkt: string } | null>;
  /** Refreshes the tokens now; the new access token's `cnf.jkt`. */
  refresh(): Promise<string | undefined>;
}

let lastAuthorization = '';
// The scheme of the last API call, for the test (the client sends `Authorization: DPoP …`).
const originalFetch = window.fetch.bind(window);
window.fetch = (input: RequestInfo | URL, init?: RequestInit) => {
  const request = new Request(input, init);
  if (new URL(request.url).pathname.endsWith('/api/v1/tickets'))
    lastAuthorization = (request.headers.get('authorization') ?? '').split(' ')[0] ?? '';
  return originalFetch(request);
};

const client = createClient({
  baseUrl: `${location.origin}/demo`,
  clientId: 'demo-spa',
  redirectUri: `${location.origin}/callback`,
  mode: 'oauth',
  dpop: true,
  pushAuthorizationRequests: true,
  tokenStore: localStorageTokenStore('gatehouse.dpop.tokens', sessionStorage),
  // Its own prefix: the demo's callback page must not find (and complete) this page's sign-in.
  transactionStore: sessionStorageTransactionStore('gatehouse.dpop.tx.'),
});

const b64url = (bytes: ArrayBuffer) =>
  btoa(String.fromCharCode(...new Uint8Array(bytes)))
    .replace(/\+/g, '-')
    .replace(/\//g, '_')
    .replace(/=+$/, '');

/** `cnf.jkt` of an access token (a JWT). */
function jktOf(token: string): string | undefined {
  const payload = JSON.parse(atob(token.split('.')[1]!.replace(/-/g, '+').replace(/_/g, '/'))) as {
    cnf?: { jkt?: string };
  };
  return payload.cnf?.jkt;
}

/** The key pair the client stored in IndexedDB (database `gatehouse-dpop`). */
async function storedKey(): Promise<CryptoKeyPair | undefined> {
  const db = await new Promise<IDBDatabase>((resolve, reject) => {
    const open = indexedDB.open('gatehouse-dpop', 1);
    open.onupgradeneeded = () => open.result.createObjectStore('keys');
    open.onsuccess = () => resolve(open.result);
    open.onerror = () => reject(open.error);
  });
  try {
    return await new Promise((resolve, reject) => {
      const get = db
        .transaction('keys', 'readonly')
        .objectStore('keys')
        .get(`${location.origin}/demo demo-spa`);
      get.onsuccess = () => resolve(get.result as CryptoKeyPair | undefined);
      get.onerror = () => reject(get.error);
    });
  } finally {
    db.close();
  }
}

const page: GatehouseDpopPage = {
  async authorizationUrl() {
    return (await client.authorizationUrl({ scope: 'openid tickets:read offline_access' })).href;
  },
  async handleCallback(url) {
    const tokens = await client.handleCallback(url);
    return { tokenType: tokens.tokenType, jkt: jktOf(tokens.accessToken) };
  },
  async tickets() {
    const response = await client.fetch('api/v1/tickets', {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ limit: 2 }),
    });
    const body = (await response.json().catch(() => ({}))) as { tickets?: unknown[] };
    return { status: response.status, tickets: body.tickets?.length ?? 0, authorization: lastAuthorization };
  },
  async key() {
    const pair = await storedKey();
    if (!pair) return null;
    const exportRefused = await crypto.subtle.exportKey('jwk', pair.privateKey).then(
      () => false,
      () => true,
    );
    const { crv, kty, x, y } = await crypto.subtle.exportKey('jwk', pair.publicKey);
    const canonical = JSON.stringify({ crv, kty, x, y });
    const jkt = b64url(await crypto.subtle.digest('SHA-256', new TextEncoder().encode(canonical)));
    return { extractable: pair.privateKey.extractable, exportRefused, jkt };
  },
  async refresh() {
    return jktOf((await client.refresh()).accessToken);
  },
};

(window as unknown as { gatehouseDpop: GatehouseDpopPage }).gatehouseDpop = page;
document.body.dataset.ready = 'yes';
