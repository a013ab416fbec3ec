import * as oauth from 'oauth4webapi';
import { type ClientConfig, requireClientId } from './config.js';
import { GatehouseClientError } from './errors.js';
import { checkIdToken, clientOnConfigClock } from './id-token.js';
import { toClientError } from './server-errors.js';
import { toTokenSet } from './token-response.js';
import type { TokenSet } from './token-store.js';

/** When a refresh is still needed once the lock is held (another caller or tab may have done it). */
export type RefreshCondition = (current: TokenSet) => boolean;

/** Refreshes token sets, one at a time per client and, with Web Locks, per origin. */
export interface Refresher {
  /**
   * Refreshes unless `needed(current)` is false for the token set read inside the lock, in which
   * case the current set is returned. Concurrent callers share one refresh.
   */
  refresh(needed: RefreshCondition): Promise<TokenSet>;
  /**
   * Called on sign-out (`revoke()`/`logout()`): a refresh in flight must not store its tokens (nor
   * clear the store) afterwards; it throws `no_token` instead. Later refreshes are not affected.
   */
  invalidate(): void;
}

/** How long a tab keeps announcing that it rotated a refresh token (far above storage propagation). */
const ROTATION_NOTICE_MS = 10_000;
/** How long a tab waits for another tab's new token set to become visible in the store. */
const STORE_CATCH_UP_MS = 5_000;
const STORE_POLL_MS = 10;

const sleep = (ms: number) =>
  new Promise<void>((resolve) => {
    const timer = setTimeout(resolve, ms) as { unref?: () => void };
    // In Node, a pending notice must not keep the process alive.
    timer.unref?.();
  });

/** A short, non-reversible name for a refresh token (lock names are visible to the whole origin). */
async function fingerprint(token: string): Promise<string> {
  const digest = new Uint8Array(await crypto.subtle.digest('SHA-256', new TextEncoder().encode(token)));
  return Array.from(digest.subarray(0, 16), (byte) => byte.toString(16).padStart(2, '0')).join('');
}

/**
 * Single flight: concurrent callers in this realm share one in-flight promise, and across tabs a
 * Web Lock serializes refreshes. Inside the lock the store is read again, so a refresh done by
 * another tab is reused instead of presenting a rotated refresh token (which the server treats as
 * reuse and answers by revoking the whole grant, RFC 9700 §4.14.2).
 *
 * Reading the store again is not enough with `localStorage` in Chromium: each renderer process
 * reads its own copy, and another tab's write reaches it asynchronously, unordered with the lock
 * grant, so the lock can be granted before the new token set is visible. Hence, with
 * `locks.query`, the tab that rotates a refresh token holds a lock named after the old token's
 * fingerprint for a while; a tab that finds that lock held knows its copy is stale and waits for
 * the store to catch up instead of presenting the rotated token.
 */
export function createRefresher(config: ClientConfig): Refresher {
  let inFlight: Promise<TokenSet> | undefined;
  /** Bumped by each sign-out; a refresh started under an older generation never writes the store. */
  let generation = 0;
  const lockName = `gatehouse-refresh ${config.baseUrl} ${config.clientId}`;
  const locks = config.locks;
  const rotationNotice = async (refreshToken: string) =>
    `${lockName} rotated ${await fingerprint(refreshToken)}`;

  /** Whether another tab has announced that it rotated `refreshToken`. */
  const rotatedElsewhere = async (refreshToken: string): Promise<boolean> => {
    if (!locks?.query) return false;
    const name = await rotationNotice(refreshToken);
    return ((await locks.query()).held ?? []).some((lock) => lock.name === name);
  };

  /** Announces, until the store has surely caught up everywhere, that `refreshToken` is rotated. */
  const announceRotation = async (refreshToken: string): Promise<void> => {
    if (!locks?.query) return;
    const name = await rotationNotice(refreshToken);
    // Resolves once the notice lock is held, i.e. before the refresh lock is released.
    await new Promise<void>((held) => {
      void locks.request(name, () => {
        held();
        return sleep(ROTATION_NOTICE_MS);
      });
    });
  };

  /** The store's token set once it no longer holds `rotated`; throws when it does not catch up. */
  const awaitNewTokenSet = async (rotated: string): Promise<TokenSet | null> => {
    for (let waited = 0; waited < STORE_CATCH_UP_MS; waited += STORE_POLL_MS) {
      await sleep(STORE_POLL_MS);
      const tokens = await config.store.get();
      if (tokens?.refreshToken !== rotated) return tokens;
    }
    throw new GatehouseClientError(
      'refresh_failed',
      'Another tab rotated the refresh token, but its new token set did not reach this tab.',
    );
  };

  const run = async (needed: RefreshCondition): Promise<TokenSet> => {
    const startedIn = generation;
    let current = await config.store.get();
    if (current?.refreshToken && needed(current) && (await rotatedElsewhere(current.refreshToken))) {
      current = await awaitNewTokenSet(current.refreshToken);
    }
    if (!current) throw new GatehouseClientError('no_token', 'There is no token set to refresh.');
    if (!needed(current)) return current;
    if (!current.refreshToken) {
      throw new GatehouseClientError('no_refresh_token', 'The token set has no refresh token.');
    }
    requireClientId(config, 'refresh');
    let response: Response;
    const dpop = await config.dpop();
    const refreshRequest = () =>
      oauth.refreshTokenGrantRequest(config.as, config.client, config.clientAuth, current.refreshToken!, {
        ...config.http,
        ...(dpop ? { DPoP: dpop } : {}),
      });
    try {
      response = await refreshRequest();
    } catch (caught) {
      throw toClientError(caught, 'refresh_failed', 'Refresh');
    }
    const refreshed = current.refreshToken;
    /**
     * Compare-and-set: the store may only be written if it still holds the set that was refreshed.
     * During the round trip this client may have signed out (generation bumped), or another tab, a
     * sign-out elsewhere or a new sign-in may have replaced or cleared the store; their state wins.
     */
    const stillCurrent = async (): Promise<boolean> =>
      generation === startedIn && (await config.store.get())?.refreshToken === refreshed;
    let tokens: TokenSet;
    try {
      const result = await oauth
        .processRefreshTokenResponse(config.as, clientOnConfigClock(config), response)
        .catch(async (error: unknown) => {
          // RFC 9449 §8: the server wants a (new) nonce, which the handle now has: once more.
          if (!oauth.isDPoPNonceError(error)) throw error;
          response = await refreshRequest();
          return oauth.processRefreshTokenResponse(config.as, clientOnConfigClock(config), response);
        });
      await checkIdToken(config, response, result, current);
      tokens = toTokenSet(result, config.now(), current);
    } catch (caught) {
      const error = toClientError(caught, 'refresh_failed', 'Refresh');
      // The server rejected the grant (revoked, expired, reused): these tokens are dead. A network
      // failure or a 5xx says nothing about them, so they are kept for a later attempt.
      if (error.status !== undefined && error.status >= 400 && error.status < 500 && (await stillCurrent()))
        await config.store.set(null);
      throw error;
    }
    if (!(await stillCurrent())) {
      const latest = generation === startedIn ? await config.store.get() : null;
      // Replaced meanwhile (a new sign-in, another tab): that set is the current one.
      if (latest) return latest;
      // Signed out meanwhile: the new tokens are discarded, never resurrected.
      throw new GatehouseClientError(
        'no_token',
        'Signed out while the refresh was in flight; its tokens were discarded.',
      );
    }
    await config.store.set(tokens);
    // Without rotation the old refresh token stays valid; nothing to announce.
    if (tokens.refreshToken !== current.refreshToken) await announceRotation(current.refreshToken);
    return tokens;
  };

  return {
    refresh(needed) {
      if (inFlight) return inFlight;
      const flight = (config.locks ? config.locks.request(lockName, () => run(needed)) : run(needed)).finally(
        () => {
          // A sign-out may have detached this flight and a newer one may have started since.
          if (inFlight === flight) inFlight = undefined;
        },
      );
      inFlight = flight;
      return flight;
    },
    invalidate() {
      generation += 1;
      // Refreshes asked for after the sign-out must not join the doomed flight.
      inFlight = undefined;
    },
  };
}
