import { base64url, utf8 } from '../crypto/encoding.js';
import { toEpochSeconds } from '../time.js';
import type { DpopSettings, ProofContext } from './settings.js';

/*
 * DPoP server nonces (RFC 9449 §8, §9), stateless: a nonce is a time window number and an HMAC of
 * it under the instance's nonce key, so issuing and checking one stores nothing, whoever asks.
 * A nonce is accepted in its own window and the next one: it lives between one and two
 * `nonceLifetime`s. The same nonce serves every client of the window (§8 allows it; its purpose
 * is to bound the lifetime of pre-made proofs, which it does).
 */

const keys = new WeakMap<DpopSettings, Promise<CryptoKey>>();

function hmacKey(settings: DpopSettings): Promise<CryptoKey> {
  let key = keys.get(settings);
  if (key === undefined) {
    key = crypto.subtle.importKey(
      'raw',
      settings.nonceKey as Uint8Array<ArrayBuffer>,
      { name: 'HMAC', hash: 'SHA-256' },
      false,
      ['sign'],
    );
    keys.set(settings, key);
  }
  return key;
}

async function nonceOf(settings: DpopSettings, window: number): Promise<string> {
  const mac = await crypto.subtle.sign('HMAC', await hmacKey(settings), utf8(`dpop-nonce:${window}`));
  return `${window.toString(36)}.${base64url(new Uint8Array(mac)).slice(0, 32)}`;
}

function windowOf(ctx: Pick<ProofContext, 'clock' | 'settings'>): number {
  return Math.floor(toEpochSeconds(ctx.clock.now()) / ctx.settings.nonceLifetime);
}

/** The nonce of the current window, for `DPoP-Nonce`. */
export function currentNonce(ctx: Pick<ProofContext, 'clock' | 'settings'>): Promise<string> {
  return nonceOf(ctx.settings, windowOf(ctx));
}

/** Whether `nonce` is one this instance issued in the current or the previous window. */
export async function isCurrentNonce(
  ctx: Pick<ProofContext, 'clock' | 'settings'>,
  nonce: string,
): Promise<boolean> {
  if (nonce.length > 64) return false;
  const window = windowOf(ctx);
  for (const candidate of [window, window - 1]) {
    if ((await nonceOf(ctx.settings, candidate)) === nonce) return true;
  }
  return false;
}
