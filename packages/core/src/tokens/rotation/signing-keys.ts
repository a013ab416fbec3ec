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

/** Options of {@link SigningKeys.rotate}. */
export interface RotateOptions {
  /**
   * The next key signs at once, even before it has been published for `leadTime`. The cost:
   * relying parties that cached the JWKS before the key was published refuse its tokens until they
   * fetch the JWKS again (most do on an unknown `kid`), and other processes of the issuer verify
   * them once they re-read the stored keys (at once on an unknown `kid`, at most once a second).
   * For a suspected leak of the signing key, revoke it instead. Default `false`.
   */
  readonly now?: boolean;
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
  rotate(options?: RotateOptions): Promise<SigningKeyInfo[]>;
  /**
   * Emergency removal of a stored key (a leaked key): it leaves the JWKS, and tokens it signed stop
   * verifying, at once in this process (the bearer check, introspection, ID token hints) and in
   * every other process within `refreshInterval`. If it was signing, the previous key of its
   * algorithm signs again while it is still retained, else the next key signs at once (relying
   * parties that cached the JWKS without it re-fetch it on the unknown `kid`); a new next key is
   * published when none is left. Resolves `false` when no stored key has that `kid`
   * (a key of the `keys` option is revoked by removing it from the options). Emits
   * `signing_key.revoked`.
   */
  revoke(kid: string): Promise<boolean>;
  /** The stored keys, read from storage now, of every rotated algorithm. */
  list(): Promise<SigningKeyInfo[]>;
}

/**
 * The stored signing keys of an instance as its features reach them: they are imported after the
 * features are set up, so the instance settles this once they are (`undefined` without
 * `keyRotation`; the import's failure when it fails).
 */
export class PendingSigningKeys {
  #settle!: (keys: Promise<SigningKeys | undefined>) => void;
  /** The keys, once the instance imported them. */
  readonly ready: Promise<SigningKeys | undefined> = new Promise((resolve) => {
    this.#settle = resolve;
  });

  constructor() {
    // A failed import is reported by the instance (`ready()`); nobody may be waiting here.
    this.ready.catch(() => {});
  }

  /** Called once by the instance, with its import of the keys. */
  settle(keys: Promise<SigningKeys | undefined>): void {
    this.#settle(keys);
  }
}
