import type { Context } from '../context.js';
import { base64url } from '../crypto/encoding.js';
import { ConfigurationError } from '../errors.js';
import { whole } from '../option-values.js';
import type { DpopOptions } from '../options.js';
import type { RandomBytes } from '../tokens/secrets.js';

/**
 * The JWS algorithms a DPoP proof may be signed with: asymmetric only (RFC 9449 §4.2: "MUST NOT be
 * none or an identifier for a symmetric algorithm"), so `none` and HS* can never be configured.
 */
export const DPOP_ALGORITHMS = ['ES256', 'ES384', 'EdDSA', 'RS256', 'PS256'] as const;

/** An algorithm of {@link DPOP_ALGORITHMS}. */
export type DpopAlgorithm = (typeof DPOP_ALGORITHMS)[number];

/** The algorithms accepted by default. */
export const DEFAULT_DPOP_ALGORITHMS: readonly DpopAlgorithm[] = ['ES256', 'EdDSA', 'RS256', 'PS256'];

/** DPoP as the instance runs it (`dpop`, validated, defaults filled in). */
export interface DpopSettings {
  readonly algorithms: readonly DpopAlgorithm[];
  /** Seconds a proof's `iat` may lie in the past, or ahead of the clock. */
  readonly proofLifetime: number;
  readonly requireNonce: 'off' | 'token' | 'all';
  /** Seconds a nonce stays valid. */
  readonly nonceLifetime: number;
  /** The HMAC key of nonces (raw bytes of the secret). */
  readonly nonceKey: Uint8Array;
  /** Every token request must carry a proof (the `fapi2` security profile). */
  readonly requiredForAll: boolean;
}

/** Validates the `dpop` option. */
export function dpopSettings(
  options: DpopOptions | undefined,
  randomBytes: RandomBytes,
  fapi2 = false,
): DpopSettings {
  const algorithms = options?.signingAlgorithms ?? DEFAULT_DPOP_ALGORITHMS;
  if (!Array.isArray(algorithms) || algorithms.length === 0)
    throw new ConfigurationError('dpop.signingAlgorithms: expected a non-empty list of algorithms.', {
      code: 'ERR_CONFIG_INVALID_OPTION',
      option: 'dpop.signingAlgorithms',
    });
  for (const alg of algorithms) {
    if (!(DPOP_ALGORITHMS as readonly string[]).includes(alg))
      throw new ConfigurationError(
        `dpop.signingAlgorithms: "${String(alg)}" is not one of ${DPOP_ALGORITHMS.join(', ')} (asymmetric only, RFC 9449 section 4.2).`,
        { code: 'ERR_CONFIG_INVALID_OPTION', option: 'dpop.signingAlgorithms' },
      );
  }
  const requireNonce = options?.requireNonce ?? 'off';
  if (requireNonce !== 'off' && requireNonce !== 'token' && requireNonce !== 'all')
    throw new ConfigurationError('dpop.requireNonce: expected "off", "token" or "all".', {
      code: 'ERR_CONFIG_INVALID_OPTION',
      option: 'dpop.requireNonce',
    });
  const secret = options?.nonceSecret;
  if (secret !== undefined && (typeof secret !== 'string' || secret.length < 32))
    throw new ConfigurationError('dpop.nonceSecret: expected a string of at least 32 characters.', {
      code: 'ERR_CONFIG_INVALID_OPTION',
      option: 'dpop.nonceSecret',
    });
  return {
    algorithms: Object.freeze([...new Set(algorithms)]),
    proofLifetime: whole('dpop.proofLifetime', options?.proofLifetime, 60, 5, 300),
    requireNonce,
    nonceLifetime: whole('dpop.nonceLifetime', options?.nonceLifetime, 300, 10, 3600),
    nonceKey: new TextEncoder().encode(secret ?? base64url(randomBytes(32))),
    requiredForAll: fapi2,
  };
}

/**
 * DPoP as an instance (or a `resourceServer()`) checks it, built once: its settings, the clock, the
 * replay store of proof ids, and the realm of its challenges (the issuer).
 */
export interface DpopChecks {
  readonly issuer: string;
  readonly clock: Context['clock'];
  readonly settings: DpopSettings;
  readonly storage: Pick<Context['storage'], 'replay'>;
}

/** What the proof check needs. */
export type ProofContext = Pick<DpopChecks, 'clock' | 'settings' | 'storage'>;
