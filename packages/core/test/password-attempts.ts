/**
 * A flood of failed password attempts through the Auth API of an instance whose counters live in
 * the key-value store `kv`, for storage engines to check what the limiter leaves in them: usernames at the
 * maximum length the limits accept, of U+FDFA (eighteen characters after NFKC), all distinct, from
 * one client address.
 */

import type { KeyValueStore } from '@gatehousejs/core/engine';
import { CREDENTIAL_LIMITS } from '../src/passwords/credential-limits.js';
import { ISSUER, testInstance, userBasic } from './fixtures';

/** What {@link failPasswordAttempts} sent and got. */
export interface PasswordFlood {
  /** The instance's rate-limit window, in milliseconds. */
  readonly windowMs: number;
  /** The instance clock when the flood started (epoch ms). */
  readonly startedAt: number;
  /** Status of each attempt. */
  readonly statuses: readonly number[];
}

/**
 * Sends `attempts` failing Auth API logins with distinct maximum-size usernames from one address,
 * one after the other, on a fresh instance with the default limits and the real clock.
 */
export async function failPasswordAttempts(kv: KeyValueStore, attempts: number): Promise<PasswordFlood> {
  const t = await testInstance({
    storage: { kv },
    rateLimit: { clientAddress: () => '203.0.113.5' },
    now: Date.now,
  });
  const startedAt = Date.now();
  const statuses: number[] = [];
  for (let i = 0; i < attempts; i++) {
    const prefix = `${i}-`;
    const username = prefix + '\uFDFA'.repeat(CREDENTIAL_LIMITS.maxUsernameLength - prefix.length);
    const response = await t.gatehouse.fetch(
      new Request(`${ISSUER}/auth/v1/token`, {
        method: 'POST',
        headers: { Authorization: userBasic(username, 'guess') },
      }),
    );
    statuses.push(response.status);
  }
  return { windowMs: 900_000, startedAt, statuses }; // the default rateLimit.windowSeconds
}
