import * as oauth from 'oauth4webapi';
import type { ClientConfig } from './config.js';
import { GatehouseClientError } from './errors.js';
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
}

/**
 * Single flight: concurrent callers in this realm share one in-flight promise, and across tabs a
 * Web Lock serializes refreshes. Inside the lock the store is read again, so a refresh done by
 * another tab is reused instead of presenting a rotated refresh token (which the server treats as
 * reuse and answers by revoking the whole grant, RFC 9700 §4.14.2).
 */
export function createRefresher(config: ClientConfig): Refresher {
  let inFlight: Promise<TokenSet> | undefined;
  const lockName = `gatehouse-refresh ${config.baseUrl} ${config.clientId}`;

  const run = async (needed: RefreshCondition): Promise<TokenSet> => {
    const current = await config.store.get();
    if (!current) throw new GatehouseClientError('no_token', 'There is no token set to refresh.');
    if (!needed(current)) return current;
    if (!current.refreshToken) {
      throw new GatehouseClientError('no_refresh_token', 'The token set has no refresh token.');
    }
    let response: Response;
    try {
      response = await oauth.refreshTokenGrantRequest(
        config.as,
        config.client,
        config.clientAuth,
        current.refreshToken,
        config.http,
      );
    } catch (caught) {
      throw toClientError(caught, 'refresh_failed', 'Refresh');
    }
    let tokens: TokenSet;
    try {
      tokens = toTokenSet(
        await oauth.processRefreshTokenResponse(config.as, config.client, response),
        config.now(),
        current,
      );
    } catch (caught) {
      const error = toClientError(caught, 'refresh_failed', 'Refresh');
      // The server rejected the grant (revoked, expired, reused): these tokens are dead. A network
      // failure or a 5xx says nothing about them, so they are kept for a later attempt.
      if (error.status !== undefined && error.status >= 400 && error.status < 500)
        await config.store.set(null);
      throw error;
    }
    await config.store.set(tokens);
    return tokens;
  };

  return {
    refresh(needed) {
      inFlight ??= (config.locks ? config.locks.request(lockName, () => run(needed)) : run(needed)).finally(
        () => {
          inFlight = undefined;
        },
      );
      return inFlight;
    },
  };
}
