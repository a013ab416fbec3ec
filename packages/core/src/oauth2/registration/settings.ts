import { ConfigurationError } from '../../errors.js';
import { defaultTransport } from '../../http/default-transport.js';
import type { OutboundFetch } from '../../http/guarded-fetch.js';
import { whole } from '../../option-values.js';
import type { ClientMetadataDocumentOptions, DynamicRegistrationOptions } from '../../options.js';

/** Dynamic registration as the instance runs it (`dynamicRegistration`, validated, defaults filled in). */
export interface DynamicRegistrationSettings {
  readonly allowConfidential: boolean;
  readonly initialAccessToken: string | undefined;
  readonly unusedTtl: number;
  readonly maxPerAddress: number;
  readonly windowSeconds: number;
  readonly maxClients: number;
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
  readonly maxConcurrentFetchesPerOrigin: number;
  readonly maxFetchesPerAddress: number;
  readonly fetchWindowSeconds: number;
  readonly maxCacheBytes: number;
}

/** The bounds every fetched-and-cached document kind shares (`clientMetadataDocuments`, `clientJwks`). */
export interface FetchBudgetSettings {
  readonly maxConcurrentFetches: number;
  readonly maxConcurrentFetchesPerOrigin: number;
  readonly maxFetchesPerAddress: number;
  readonly fetchWindowSeconds: number;
  readonly maxCacheBytes: number;
}

/** The options of {@link FetchBudgetSettings}, as given. */
interface FetchBudgetOptions {
  readonly maxConcurrentFetches?: number;
  readonly maxConcurrentFetchesPerOrigin?: number;
  readonly maxFetchesPerAddress?: number;
  readonly fetchWindowSeconds?: number;
  readonly maxCacheBytes?: number;
}

/**
 * Validates the fetch budget of `option` (`clientMetadataDocuments` or `clientJwks`): 16 fetches
 * in flight, 4 per origin, 30 per address and 10 minutes, an 8 MiB cache unless given.
 */
export function fetchBudgetSettings(option: string, given: FetchBudgetOptions): FetchBudgetSettings {
  const maxConcurrentFetches = whole(
    `${option}.maxConcurrentFetches`,
    given.maxConcurrentFetches,
    16,
    1,
    1024,
  );
  return {
    maxConcurrentFetches,
    maxConcurrentFetchesPerOrigin: whole(
      `${option}.maxConcurrentFetchesPerOrigin`,
      given.maxConcurrentFetchesPerOrigin,
      Math.min(4, maxConcurrentFetches),
      1,
      maxConcurrentFetches,
    ),
    maxFetchesPerAddress: whole(
      `${option}.maxFetchesPerAddress`,
      given.maxFetchesPerAddress,
      30,
      1,
      1_000_000,
    ),
    fetchWindowSeconds: whole(`${option}.fetchWindowSeconds`, given.fetchWindowSeconds, 600, 1, 86_400),
    maxCacheBytes: whole(
      `${option}.maxCacheBytes`,
      given.maxCacheBytes,
      8 * 1_048_576,
      65_536,
      1_073_741_824,
    ),
  };
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
    maxClients: whole('dynamicRegistration.maxClients', options.maxClients, 10_000, 1, 10_000_000),
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
    fetch: options.fetch ?? defaultTransport().fetch,
    allowLoopback: options.allowLoopback ?? false,
    maxBytes: whole('clientMetadataDocuments.maxBytes', options.maxBytes, 16_384, 256, 1_048_576),
    timeoutMs: whole('clientMetadataDocuments.timeoutMs', options.timeoutMs, 3000, 100, 30_000),
    minCacheSeconds,
    maxCacheSeconds,
    ...fetchBudgetSettings('clientMetadataDocuments', options),
  };
}
