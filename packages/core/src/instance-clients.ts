import { consoleClients } from './console/internal-client.js';
import type { ClientDirectory } from './context.js';
import { ConfigurationError } from './errors.js';
import type { Logger } from './events.js';
import { chargeClientNetwork } from './http/address-rate-limit.js';
import type { FetchCaller } from './http/bounded-fetch-cache.js';
import { defaultTransport } from './http/default-transport.js';
import { ClientJwksCache, type ClientJwksPolicy } from './oauth2/client-auth/client-jwks.js';
import { clientDirectory } from './oauth2/client-directory.js';
import { looksLikeClientIdUrl } from './oauth2/registration/client-id-url.js';
import { registrationLookupHook } from './oauth2/registration/feature.js';
import { ClientMetadataDocuments } from './oauth2/registration/metadata-documents.js';
import {
  type FetchBudgetSettings,
  fetchBudgetSettings,
  type MetadataDocumentSettings,
  metadataDocumentSettings,
} from './oauth2/registration/settings.js';
import { lifetime, whole } from './option-values.js';
import type { GatehouseOptions } from './options.js';
import type { RecordProblems } from './records/record-problems.js';
import { kvRateLimitStore } from './storage/kv/rate-limits.js';
import { memoryKeyValueStore } from './storage/memory/key-value.js';
import type { ClientRegistry, ClientStore } from './storage/types.js';

/**
 * Client networks whose fetch budget one process counts at once, per kind of document (about 2 MB).
 * Full (10,000 networks fetching within one window): a network without a counter yet is refused
 * (429) until windows end; existing counters keep counting (a bounded `memoryKeyValueStore` per kind).
 */
const FETCH_COUNTERS = 10_000;

/** What {@link instanceClients} is built from, besides the options. */
export interface ClientSources {
  /** The host's client store, guarded. */
  readonly host: ClientStore;
  /** The instance's registered clients. */
  readonly registry: ClientRegistry;
  readonly now: () => number;
  readonly problems: RecordProblems;
  readonly clientAddress: (request: Request) => string | undefined;
  readonly allowedOrigins: readonly string[];
  readonly scopes: ReadonlySet<string> | undefined;
  readonly logger: Logger;
  /** `{base_url}`: the operations console's client redirects below it. */
  readonly issuer: string;
  /** The admin API's scope when it is on (the operations console's client asks for it). */
  readonly adminScope: string | undefined;
}

/**
 * The clients an instance knows: the host's, then the registered ones (dynamic registration moves
 * their unused deadline), then client ID metadata documents when on; with the fetched `jwks_uri`
 * key sets of `private_key_jwt` clients. Each fetch a request causes is charged to its address,
 * like RFC 7591 registrations, but on counters of this process: the fetches and the cache they
 * fill are this process's, and nothing an anonymous request names is written to the storage
 * engine. One bounded table per kind.
 */
export function instanceClients(
  options: GatehouseOptions,
  sources: ClientSources,
): { readonly clients: ClientDirectory; readonly metadataDocuments: MetadataDocumentSettings | undefined } {
  const { now, clientAddress, scopes } = sources;
  const fetchCaller = (bucket: string, budget: FetchBudgetSettings, what: string) => {
    const counters = {
      limits: { rateLimit: { clientAddress } },
      storage: { rateLimits: kvRateLimitStore(memoryKeyValueStore({ maxEntries: FETCH_COUNTERS })) },
      clock: { now },
    };
    const limit = {
      name: bucket,
      max: budget.maxFetchesPerAddress,
      windowSeconds: budget.fetchWindowSeconds,
      description: `Too many ${what} fetched for this address; try again later.`,
    };
    return (request: Request): FetchCaller => ({
      address: clientAddress(request),
      charge: async () => {
        await chargeClientNetwork(counters, request, limit);
      },
    });
  };
  const registrationFound = registrationLookupHook(options.dynamicRegistration, sources.registry, now);
  const settings = metadataDocumentSettings(options.clientMetadataDocuments);
  const documents = settings && new ClientMetadataDocuments(settings, scopes, now);
  const documentCaller = settings && fetchCaller('cimd', settings, 'client metadata documents were');
  const jwksPolicy = clientJwksPolicy(options);
  const internal = consoleClients(options, sources.issuer, sources.adminScope);
  warnWithoutAddressChecks(options, sources.logger);
  const clients = clientDirectory(
    sources.host,
    sources.registry,
    now,
    sources.problems,
    new ClientJwksCache(jwksPolicy, fetchCaller('jwks', jwksPolicy, 'client key sets were')),
    sources.allowedOrigins,
    {
      ...(internal ? { internal } : {}),
      ...(registrationFound ? { found: registrationFound } : {}),
      ...(documents && documentCaller
        ? {
            documents: {
              claims: looksLikeClientIdUrl,
              resolve: (clientId: string, request?: Request) =>
                documents.resolve(clientId, request && documentCaller(request)),
            },
          }
        : {}),
    },
  );
  return { clients, metadataDocuments: settings };
}
/** The outbound policy of `jwks_uri` fetches, from the `clientJwks` option (as `clientMetadataDocuments`). */
function clientJwksPolicy(options: GatehouseOptions): ClientJwksPolicy {
  const given = options.clientJwks ?? {};
  if (given.fetch !== undefined && typeof given.fetch !== 'function') {
    throw new ConfigurationError('clientJwks.fetch: expected a function.', { option: 'clientJwks.fetch' });
  }
  return {
    fetch: given.fetch ?? defaultTransport().fetch,
    allowLoopback: given.allowLoopback ?? false,
    timeoutMs: whole('clientJwks.timeoutMs', given.timeoutMs, 5000, 100, 30_000),
    maxBytes: whole('clientJwks.maxBytes', given.maxBytes, 65_536, 256, 1_048_576),
    cacheMs: lifetime('clientJwks.cacheSeconds', given.cacheSeconds, 300, 86_400) * 1000,
    ...fetchBudgetSettings('clientJwks', given),
  };
}
/**
 * Says once, at creation, when anonymous callers can name URLs the server fetches (client ID
 * metadata documents; `jwks_uri`s of self-registered clients) and the transport of those fetches
 * is the default one of a runtime where it cannot check the addresses a host name resolves to.
 */
function warnWithoutAddressChecks(options: GatehouseOptions, logger: Logger): void {
  if (defaultTransport().checksResolvedAddresses) return;
  const unchecked = [
    ...(options.clientMetadataDocuments && !options.clientMetadataDocuments.fetch
      ? ['clientMetadataDocuments']
      : []),
    ...((options.clientMetadataDocuments || options.dynamicRegistration) && !options.clientJwks?.fetch
      ? ['clientJwks']
      : []),
  ];
  if (unchecked.length === 0) return;
  logger.warn(
    `gatehouse: ${unchecked.join(' and ')} fetch URLs that anonymous callers choose with this runtime's fetch, ` +
      'which cannot check the addresses a host name resolves to: a name resolving to a private or loopback ' +
      'address is fetched unless the platform refuses it (IP literals are always refused). Run on Node.js, ' +
      'pass a `fetch` transport that checks resolved addresses, or make sure the egress rules stop such requests.',
  );
}
