import type { Context } from '../context.js';
import type { KeyRotationSettings } from '../tokens/rotation/settings.js';
import type { SigningKeys } from '../tokens/rotation/signing-keys.js';
import { keysView } from './keys.js';

/** A key of the key-value store no record uses: the engine's round trip is timed on it. */
const PROBE_KEY = 'admin:health-probe';

/**
 * `health`: the engine's answer to one read (and its latency), the pushed-revocations channel of
 * this process (its latest probe's round trip), and the state of every signing key.
 */
export async function instanceHealth(
  ctx: Pick<Context, 'clock' | 'keys' | 'storage' | 'logger' | 'tokens'>,
  keyring: SigningKeys | undefined,
  rotation: KeyRotationSettings | undefined,
) {
  let reachable = true;
  let latencyMs: number | null = null;
  const started = performance.now();
  try {
    await ctx.storage.kv.get(PROBE_KEY, ctx.clock.now());
    latencyMs = Math.round((performance.now() - started) * 100) / 100;
  } catch (error) {
    reachable = false;
    ctx.logger.warn('gatehouse: admin health: the storage engine did not answer', error);
  }
  let keys: { signing: string; states: Record<string, string> };
  try {
    const view = await keysView(ctx, keyring, rotation);
    keys = {
      signing: view.signing.kid,
      states: Object.fromEntries(view.keys.map((key) => [key.kid, key.state])),
    };
  } catch (error) {
    reachable = false;
    ctx.logger.warn('gatehouse: admin health: the stored keys could not be read', error);
    keys = { signing: ctx.keys.signingKid, states: {} };
  }
  const mirror = ctx.tokens.revocationMirror;
  const lag = mirror?.lagMs;
  return {
    status: reachable ? 'ok' : 'degraded',
    engine: { reachable, latencyMs },
    revocations:
      mirror === undefined
        ? { pushed: false, lagMs: null }
        : { pushed: true, live: mirror.live, lagMs: lag === undefined ? null : Math.round(lag * 100) / 100 },
    keys,
  };
}
