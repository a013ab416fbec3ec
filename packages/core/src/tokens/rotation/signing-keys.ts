import type { EpochMs } from '../../time.js';
import type { SigningAlgorithm } from '../keys.js';

/** One stored signing key (`keyRotation`), as `gatehouse.keys.list()` describes it. */
export interface SigningKeyInfo {
  readonly kid: string;
  readonly algorithm: SigningAlgorithm;
  /**
   * `next` (published, not signing yet), `signing` (signs everything of its algorithm), or
   * `retired` (stopped signing; published and verifying until `dropsAt`).
   */
  readonly state: 'next' | 'signing' | 'retired';
  /** When it was stored and published (epoch ms). */
  readonly publishedAt: EpochMs;
  /** When it starts (or started) signing (epoch ms). */
  readonly signsFrom: EpochMs;
  /** When it stops signing, once the key after it is scheduled (epoch ms). */
  readonly signsUntil?: EpochMs;
  /** When it leaves the JWKS, for a retired key (epoch ms). */
  readonly dropsAt?: EpochMs;
}

/**
 * The stored signing keys of an instance (`gatehouse.keys`), with the `keyRotation` option. Without
 * it every method rejects with `ConfigurationError` (`ERR_CONFIG_MISSING_OPTION`, `keyRotation`).
 */
export interface SigningKeys {
  /**
   * Rotates now, for every rotated algorithm: the published next key starts signing, at once if it
   * has been published for `leadTime` (plus the refresh interval) already, else as soon as it has;
   * a new next key is published. Other processes follow within `refreshInterval` (until then they
   * sign with the previous key, which still verifies everywhere). Resolves to the keys that sign
   * next. Emits `signing_key.rotated` and `signing_key.published`.
   */
  rotate(): Promise<SigningKeyInfo[]>;
  /**
   * Emergency removal of a stored key (a leaked key): it leaves the JWKS, and tokens it signed stop
   * verifying, at once in this process (the bearer check, introspection, ID token hints) and in
   * every other process within `refreshInterval`. If it was signing, the next key of its algorithm
   * signs at once (relying parties that cached the JWKS without it re-fetch it on the unknown
   * `kid`), and a new next key is published. Resolves `false` when no stored key has that `kid`
   * (a key of the `keys` option is revoked by removing it from the options). Emits
   * `signing_key.revoked`.
   */
  revoke(kid: string): Promise<boolean>;
  /** The stored keys, read from storage now, of every rotated algorithm. */
  list(): Promise<SigningKeyInfo[]>;
}
