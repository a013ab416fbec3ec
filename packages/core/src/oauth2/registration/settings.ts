import { ConfigurationError } from '../../errors.js';
import { type OutboundFetch, runtimeFetch } from '../../http/guarded-fetch.js';
import type { ClientMetadataDocumentOptions, DynamicRegistrationOptions } from '../../options.js';

/** Dynamic registration as the instance runs it (`dynamicRegistration`, validated, defaults filled in). */
export interface DynamicRegistrationSettings {
  readonly allowConfidential: boolean;
  readonly initialAccessToken: string | undefined;
  readonly unusedTtl: number;
  readonly maxPerAddress: number;
  readonly windowSeconds: number;
}

/** Client ID metadata documents as the instance runs them (`clientMetadataDocuments`, validated). */
export interface MetadataDocumentSettings {
  readonly fetch: OutboundFetch;
  readonly allowLoopback: boolean;
  readonly maxBytes: number;
  readonly timeoutMs: number;
  readonly minCacheSeconds: number;
  readonly maxCacheSeconds: number;
  readonly maxConcurrentFetches: number;
}

/** `value` (or `fallback` when absent), checked to be a whole number from `min` to `max`. */
export function whole(
  name: string,
  value: number | undefined,
  fallback: number,
  min: number,
  max: number,
): number {
  const n = value ?? fallback;
  if (!Number.isInteger(n) || n < min || n > max)
    throw new ConfigurationError(
      `${name}: expected a whole number from ${min} to ${max}, got ${String(value)}.`,
      { option: name },
    );
  return n;
}

/** Validates `dynamicRegistration`; `undefined` when registration is off. */
export function dynamicRegistrationSettings(
  options: DynamicRegistrationOptions | undefined,
): DynamicRegistrationSettings | undefined {
  if (options === undefined) return undefined;
  const token = options.initialAccessToken;
  if (
    token !== undefined &&
    (typeof token !== 'string' || token.length < 16 || !/^[\x21-\x7e]+$/.test(token))
  )
    throw new ConfigurationError(
      'dynamicRegistration.initialAccessToken: expected at least 16 printable ASCII characters without spaces (e.g. generateClientSecret()).',
      { option: 'dynamicRegistration.initialAccessToken' },
    );
  return {
    allowConfidential: options.allowConfidential ?? false,
    initialAccessToken: token,
    unusedTtl: whole('dynamicRegistration.unusedTtl', options.unusedTtl, 30 * 86_400, 60, 366 * 86_400),
    maxPerAddress: whole('dynamicRegistration.maxPerAddress', options.maxPerAddress, 10, 1, 1_000_000),
    windowSeconds: whole('dynamicRegistration.windowSeconds', options.windowSeconds, 3600, 1, 86_400),
  };
}

/** Validates `clientMetadataDocuments`; `undefined` when client ID metadata documents are off. */
export function metadataDocumentSettings(
  options: ClientMetadataDocumentOptions | undefined,
): MetadataDocumentSettings | undefined {
  if (options === undefined) return undefined;
  if (options.fetch !== undefined && typeof options.fetch !== 'function')
    throw new ConfigurationError('clientMetadataDocuments.fetch: expected a function.', {
      option: 'clientMetadataDocuments.fetch',
    });
  const minCacheSeconds = whole(
    'clientMetadataDocuments.minCacheSeconds',
    options.minCacheSeconds,
    300,
    1,
    86_400,
  );
  const maxCacheSeconds = whole(
    'clientMetadataDocuments.maxCacheSeconds',
    options.maxCacheSeconds,
    86_400,
    minCacheSeconds,
    30 * 86_400,
  );
  return {
    fetch: options.fetch ?? runtimeFetch,
    allowLoopback: options.allowLoopback ?? false,
    maxBytes: whole('clientMetadataDocuments.maxBytes', options.maxBytes, 16_384, 256, 1_048_576),
    timeoutMs: whole('clientMetadataDocuments.timeoutMs', options.timeoutMs, 3000, 100, 30_000),
    minCacheSeconds,
    maxCacheSeconds,
    maxConcurrentFetches: whole(
      'clientMetadataDocuments.maxConcurrentFetches',
      options.maxConcurrentFetches,
      16,
      1,
      1024,
    ),
  };
}
