import { auditSinks, eventEmitter } from './audit/emitter.js';
import type { Context, InstanceStores } from './context.js';
import { dpopSettings } from './dpop/settings.js';
import { ConfigurationError } from './errors.js';
import type { Logger } from './events.js';
import { type AssembledFeatures, assembleFeatures, type Feature } from './feature.js';
import { chargeClientNetwork } from './http/address-rate-limit.js';
import type { FetchCaller } from './http/bounded-fetch-cache.js';
import { clientAddressOf } from './http/client-address.js';
import { defaultTransport } from './http/default-transport.js';
import { withHostRequest } from './http/host-request.js';
import { resolveInteractions } from './interaction/settings.js';
import { ClientJwksCache, type ClientJwksPolicy } from './oauth2/client-auth/client-jwks.js';
import { clientDirectory } from './oauth2/client-directory.js';
import { deviceAuthorizationFeature } from './oauth2/device/feature.js';
import { confidentialClientsOnly, fapi2Profile } from './oauth2/fapi/profile.js';
import { extensionGrantsFeature } from './oauth2/grants/extension-grants.js';
import { coreGrantsFeature, jwtBearerFeature, tokenExchangeFeature } from './oauth2/grants/feature.js';
import { pushedAuthorizationRequestsFeature, pushRequirement } from './oauth2/par/feature.js';
import { looksLikeClientIdUrl } from './oauth2/registration/client-id-url.js';
import { dynamicRegistrationFeature, registrationLookupHook } from './oauth2/registration/feature.js';
import { ClientMetadataDocuments } from './oauth2/registration/metadata-documents.js';
import {
  type FetchBudgetSettings,
  fetchBudgetSettings,
  metadataDocumentSettings,
} from './oauth2/registration/settings.js';
import { resourceUriProblem } from './oauth2/resource-indicators.js';
import { tokenExchangeSettings } from './oauth2/token-exchange/settings.js';
import { resolveTrustedIssuers } from './oauth2/trusted-issuers.js';
import { whole } from './option-values.js';
import type { ConsentOptions, GatehouseOptions } from './options.js';
import { PasswordCheckGate } from './passwords/password-check-gate.js';
import { checkedUserStore } from './records/checked-user-store.js';
import { RecordProblems } from './records/record-problems.js';
import { mirroredGrantStore, RevocationMirror } from './revocation/revocation-mirror.js';
import { guardStore } from './storage/guard.js';
import { checkInstanceId, isStorageEngine } from './storage/instance-id.js';
import { kvRateLimitStore } from './storage/kv/rate-limits.js';
import { stateStores } from './storage/kv/stores.js';
import { memoryStorage } from './storage/memory/engine.js';
import { memoryKeyValueStore } from './storage/memory/key-value.js';
import { type InstanceStorage, requireAllStores } from './storage/required-stores.js';
import type { GrantStore, UserStore } from './storage/types.js';
import { telemetrySettings } from './telemetry/settings.js';
import type { Telemetry } from './telemetry/telemetry.js';
import { tracedStore } from './telemetry/traced-store.js';
import type { KeySet } from './tokens/keys.js';
import { checkKeys, isEphemeralKey, SIGNING_ALGORITHMS, type SigningAlgorithm } from './tokens/keys.js';
import { keyRotationSettings } from './tokens/rotation/settings.js';
import { webRandomBytes } from './tokens/secrets.js';
import { VerifiedTokenCache } from './tokens/verified-token-cache.js';
import { resolveUi } from './ui/texts.js';
import { refuseUnknownOptions } from './unknown-options.js';

const LOOPBACK = new Set(['localhost', '127.0.0.1', '[::1]']);

/**
 * Client networks whose fetch budget one process counts at once, per kind of document (about 2 MB).
 * Full (10,000 networks fetching within one window): a network without a counter yet is refused
 * (429) until windows end; existing counters keep counting (a bounded `memoryKeyValueStore` per kind).
 */
const FETCH_COUNTERS = 10_000;

function lifetime(name: string, value: number | undefined, fallback: number, max = 366 * 86_400): number {
  const seconds = value ?? fallback;
  if (!Number.isInteger(seconds) || seconds < 1 || seconds > max) {
    throw new ConfigurationError(
      `${name}: expected a whole number of seconds between 1 and ${max}, got ${String(value)}.`,
      { option: name },
    );
  }
  return seconds;
}

function count(name: string, value: number | undefined, fallback: number, min = 1): number {
  const n = value ?? fallback;
  if (!Number.isInteger(n) || n < min) {
    const expected = min === 0 ? 'a whole number, 0 or more' : 'a positive whole number';
    throw new ConfigurationError(`${name}: expected ${expected}, got ${String(value)}.`, { option: name });
  }
  return n;
}

/** Parses and checks the issuer (RFC 8414 §2: https, no query or fragment). */
export function parseIssuer(issuer: string, allowInsecure: boolean): URL {
  let url: URL;
  try {
    url = new URL(issuer);
  } catch {
    throw new ConfigurationError(`issuer: "${issuer}" is not an absolute URL.`, {
      code: issuer === undefined ? 'ERR_CONFIG_MISSING_OPTION' : 'ERR_CONFIG_INVALID_OPTION',
      option: 'issuer',
    });
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:')
    throw new ConfigurationError('issuer: must be an http(s) URL.', { option: 'issuer' });
  if (url.search || url.hash || issuer.includes('?') || issuer.includes('#')) {
    throw new ConfigurationError('issuer: must not have a query or fragment (RFC 8414 §2).', {
      option: 'issuer',
    });
  }
  if (url.protocol === 'http:' && !LOOPBACK.has(url.hostname) && !allowInsecure) {
    throw new ConfigurationError(
      `issuer: "${issuer}" is not https. Use https, a loopback host, or set allowInsecureIssuer for a non-production setup.`,
      { option: 'issuer' },
    );
  }
  return url;
}

/** Everything of the context that does not need the imported keys; validated synchronously. */
export type ResolvedOptions = Omit<Context, 'keys'> & {
  /** What the instance's features add: routes, grant types, discovery members (built with them). */
  readonly features: AssembledFeatures;
};

/**
 * What a `createGatehouseHost` hands every instance it creates, beyond the options: memory whose
 * bound holds for all of them together rather than for each.
 */
export interface SharedResources {
  /** A cache of the host's one bounded table ({@link VerifiedTokenCache.share}). */
  readonly verifiedTokens?: VerifiedTokenCache;
}

/** Validates options and fills in defaults; throws {@link ConfigurationError} with a precise message. */
export function resolveOptions(options: GatehouseOptions, shared: SharedResources = {}): ResolvedOptions {
  if (!options || typeof options !== 'object')
    throw new ConfigurationError('createGatehouse: options are required.', {
      code: 'ERR_CONFIG_MISSING_OPTION',
    });
  refuseUnknownOptions(options);
  const url = parseIssuer(options.issuer, options.allowInsecureIssuer ?? false);
  const basePath = url.pathname.replace(/\/+$/, '');
  const issuer = url.origin + basePath;
  // The issuer is an identifier compared byte for byte (RFC 8414 §3.3, OpenID Connect Discovery
  // §4.3, every ID token's `iss`): written otherwise than it is used (a trailing slash, an upper-case
  // host, a default port), relying parties configured as written would fail discovery.
  if (issuer !== options.issuer)
    throw new ConfigurationError(
      `issuer: "${options.issuer}" is not written as the issuer identifier it stands for, "${issuer}" (without a trailing slash, host in lower case, no default port): give "${issuer}", and configure relying parties with exactly that.`,
      { code: 'ERR_CONFIG_INVALID_OPTION', option: 'issuer' },
    );
  const algorithm = options.algorithm ?? 'ES256';
  if (!SIGNING_ALGORITHMS.includes(algorithm))
    throw new ConfigurationError(
      `algorithm: "${algorithm}" is not supported (${SIGNING_ALGORITHMS.join(', ')}).`,
      { option: 'algorithm' },
    );
  checkKeys(options.keys, algorithm, options.signers ?? [], rotatedAlgorithms(options, algorithm));
  refuseEphemeralKeysInProduction(options);
  if (!options.clients || typeof options.clients.findClient !== 'function') {
    throw new ConfigurationError(
      'clients: a ClientStore (with findClient) is required, e.g. memoryClientStore([...]).',
      {
        code: options.clients ? 'ERR_CONFIG_INVALID_OPTION' : 'ERR_CONFIG_MISSING_OPTION',
        option: 'clients',
      },
    );
  }
  if (!options.users || typeof options.users.findUser !== 'function') {
    throw new ConfigurationError('users: a UserStore (with findUser) is required.', {
      code: options.users ? 'ERR_CONFIG_INVALID_OPTION' : 'ERR_CONFIG_MISSING_OPTION',
      option: 'users',
    });
  }
  // Passwords are checked by the built-in login page and the Auth API only.
  if (typeof (options.users as Partial<UserStore>).verifyPassword !== 'function') {
    const users = [
      ...(options.interactions?.url === undefined
        ? ['the built-in login page (or set interactions.url)']
        : []),
      ...(options.authApi?.enabled !== false ? ['the Auth API (or set authApi.enabled: false)'] : []),
    ];
    if (users.length > 0)
      throw new ConfigurationError(`users.verifyPassword: required by ${users.join(' and ')}.`, {
        code: 'ERR_CONFIG_MISSING_OPTION',
        option: 'users.verifyPassword',
      });
  }
  const timeoutMs = count('storageTimeoutMs', options.storageTimeoutMs, 5000);
  const telemetry = telemetrySettings(options.telemetry, issuer);
  const { storage, revocationMirror } = instanceStorage(options, issuer, timeoutMs, telemetry);
  const hostStore = <T extends object>(store: T, name: string): T => {
    const guarded = guardStore(store, timeoutMs);
    return telemetry ? tracedStore(guarded, name, telemetry) : guarded;
  };
  for (const origin of options.cors?.allowedOrigins ?? []) {
    let parsed: URL | undefined;
    try {
      parsed = new URL(origin);
    } catch {}
    if (!parsed || parsed.origin !== origin) {
      throw new ConfigurationError(
        `cors.allowedOrigins: "${origin}" is not an origin (scheme://host[:port], no path or slash).`,
        { option: 'cors.allowedOrigins' },
      );
    }
  }
  const scopes = options.scopes ? new Set(options.scopes) : undefined;
  const defaultScope = options.defaultScope ?? '';
  for (const scope of defaultScope.split(' ').filter(Boolean)) {
    if (scopes && !scopes.has(scope))
      throw new ConfigurationError(`defaultScope: "${scope}" is not in scopes.`, {
        code: 'ERR_CONFIG_CONFLICTING_OPTIONS',
        option: 'defaultScope',
      });
  }
  const authApiScope = (options.authApi?.scope ?? '').split(' ').filter(Boolean);
  for (const scope of authApiScope) {
    if (scopes && !scopes.has(scope))
      throw new ConfigurationError(`authApi.scope: "${scope}" is not in scopes.`, {
        code: 'ERR_CONFIG_CONFLICTING_OPTIONS',
        option: 'authApi.scope',
      });
  }
  const fapi2 = fapi2Profile(options);
  const onlyConfidential = confidentialClientsOnly(options);
  const accessTokenTtl = lifetime('accessTokenTtl', options.accessTokenTtl, 3600, 86_400);
  const authApiEnabled = options.authApi?.enabled ?? !fapi2;
  const authApiTokenTtl = lifetime('authApi.tokenTtl', options.authApi?.tokenTtl, 86_400, 30 * 86_400);
  const tokenExchange = tokenExchangeSettings(options.tokenExchange);
  // What a retired key signed lives this long at most: access tokens of both families, ID tokens
  // (as long as access tokens, oidc/id-token.ts) and ID-JAGs.
  const maxTokenLifetime = Math.max(
    accessTokenTtl,
    authApiEnabled ? authApiTokenTtl : 0,
    tokenExchange?.idJagTtl ?? 0,
  );
  const keyRotation = keyRotationSettings(options.keyRotation, algorithm, maxTokenLifetime);
  const requirePkce = options.requirePkce ?? (fapi2 ? 'all' : 'public');
  if (requirePkce !== 'public' && requirePkce !== 'all')
    throw new ConfigurationError('requirePkce: expected "public" or "all".', { option: 'requirePkce' });
  const logger = withDebugLog(options.logger ?? console, options.debug ?? debugFromEnvironment());
  if (options.onEvent !== undefined && typeof options.onEvent !== 'function')
    throw new ConfigurationError('onEvent: expected a function.', { option: 'onEvent' });
  const cookieName = options.session?.cookieName ?? 'gatehouse_session';
  if (!/^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/.test(cookieName)) {
    throw new ConfigurationError(
      `session.cookieName: "${cookieName}" is not a valid cookie name (RFC 6265 §4.1.1).`,
      { option: 'session.cookieName' },
    );
  }

  const cookiePath = options.session?.cookiePath ?? (basePath === '' ? '/' : basePath);
  if (!isPathPrefix(cookiePath, basePath)) {
    throw new ConfigurationError(
      `session.cookiePath: "${cookiePath}" must be "/" or a path prefix of the instance path "${basePath || '/'}" ` +
        '(the cookie must reach the login and authorize routes), without a trailing slash.',
      { option: 'session.cookiePath' },
    );
  }

  const recordProblems = new RecordProblems(logger);
  const audience = options.audience ?? `${issuer}/api/v1`;
  const now = options.now ?? Date.now;
  // The host's lookup gets a platform `Request`, never the Node bridge's light one (host-request.ts).
  const hostClientAddress = options.rateLimit?.clientAddress;
  const clientAddress =
    typeof hostClientAddress === 'function' ? withHostRequest(hostClientAddress) : clientAddressOf;
  const { emit, emitFor } = eventEmitter({
    onEvent: options.onEvent,
    audit: auditSinks(options.audit),
    instance: issuer,
    now,
    clientAddress,
    logger,
  });
  const registrationFound = registrationLookupHook(options.dynamicRegistration, storage.clients, now);
  const clientMetadataDocuments = metadataDocumentSettings(options.clientMetadataDocuments);
  // Each fetch a request causes is charged to its address, like RFC 7591 registrations, but on
  // counters of this process: the fetches and the cache they fill are this process's, and nothing
  // an anonymous request names is written to the storage engine. One bounded table per kind.
  const fetchCaller = (bucket: string, budget: FetchBudgetSettings, what: string) => {
    const counters = {
      rateLimit: { clientAddress },
      storage: { rateLimits: kvRateLimitStore(memoryKeyValueStore({ maxEntries: FETCH_COUNTERS })) },
      now,
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
  const metadataDocuments =
    clientMetadataDocuments && new ClientMetadataDocuments(clientMetadataDocuments, scopes, now);
  const documentCaller =
    clientMetadataDocuments && fetchCaller('cimd', clientMetadataDocuments, 'client metadata documents were');
  const jwksPolicy = clientJwksPolicy(options);
  warnWithoutAddressChecks(options, logger);
  if (options.resources !== undefined && !Array.isArray(options.resources))
    throw new ConfigurationError('resources: expected an array of absolute URIs.', { option: 'resources' });
  for (const resource of options.resources ?? []) {
    const problem = typeof resource === 'string' ? resourceUriProblem(resource) : 'is not a string';
    if (problem)
      throw new ConfigurationError(`resources: "${String(resource)}" ${problem} (RFC 8707 section 2).`, {
        option: 'resources',
      });
  }
  const base: Omit<Context, 'keys'> = {
    issuer,
    issuerOrigin: url.origin,
    basePath,
    secure: url.protocol === 'https:',
    audience,
    audienceList: Object.freeze([audience]),
    resources: new Set([audience, ...(options.resources ?? [])]),
    // Host stores too: a failing or hanging user/client lookup is a 503, never a 500 or a stuck request.
    clients: clientDirectory(hostStore(options.clients, 'clients'), storage.clients, now, recordProblems, {
      ...(registrationFound ? { found: registrationFound } : {}),
      ...(metadataDocuments && documentCaller
        ? {
            documents: {
              claims: looksLikeClientIdUrl,
              resolve: (clientId: string, request?: Request) =>
                metadataDocuments.resolve(clientId, request && documentCaller(request)),
            },
          }
        : {}),
    }),
    clientJwks: new ClientJwksCache(jwksPolicy, fetchCaller('jwks', jwksPolicy, 'client key sets were')),
    users: checkedUserStore(hostStore(options.users, 'users'), recordProblems),
    recordProblems,
    storage,
    scopes,
    defaultScope,
    accessTokenTtl,
    refreshTokenTtl: lifetime('refreshTokenTtl', options.refreshTokenTtl, 30 * 86_400),
    // FAPI 2.0 §5.3.2.1: codes live at most 60 seconds.
    authorizationCodeTtl: lifetime(
      'authorizationCodeTtl',
      options.authorizationCodeTtl,
      60,
      fapi2 ? 60 : 600,
    ),
    // FAPI 2.0 §5.3.2.1: no refresh token rotation (the tokens are sender-constrained instead).
    rotateRefreshTokens: options.rotateRefreshTokens ?? !fapi2,
    requirePkce,
    authApi: {
      // The Auth API is a password grant in another shape, which FAPI 2.0 rules out.
      enabled: authApiEnabled,
      tokenTtl: authApiTokenTtl,
      scope: [...new Set(authApiScope)].join(' '),
    },
    session: {
      cookieName,
      cookiePath,
      idleTimeout: lifetime('session.idleTimeout', options.session?.idleTimeout, 1800),
      absoluteTimeout: lifetime('session.absoluteTimeout', options.session?.absoluteTimeout, 43_200),
    },
    rateLimit: {
      maxFailuresPerUsername: count(
        'rateLimit.maxFailuresPerUsername',
        options.rateLimit?.maxFailuresPerUsername,
        5,
      ),
      maxFailuresPerAddress: count(
        'rateLimit.maxFailuresPerAddress',
        options.rateLimit?.maxFailuresPerAddress,
        50,
      ),
      windowSeconds: lifetime('rateLimit.windowSeconds', options.rateLimit?.windowSeconds, 900),
      clientAddress,
    },
    passwordChecks: new PasswordCheckGate(
      count('passwordChecks.maxConcurrent', options.passwordChecks?.maxConcurrent, 4),
      count('passwordChecks.maxQueued', options.passwordChecks?.maxQueued, 32, 0),
    ),
    cors: {
      allowedOrigins: options.cors?.allowedOrigins ?? [],
      maxAgeSeconds: lifetime('cors.maxAgeSeconds', options.cors?.maxAgeSeconds, 600, 86_400),
    },
    ui: resolveUi(options.ui, issuer),
    interactions: resolveInteractions(options.interactions, url, basePath, cookieName),
    claims: claimsHook(options.claims),
    maxBodyBytes: count('maxBodyBytes', options.maxBodyBytes, 65_536),
    clockToleranceSeconds: options.clockToleranceSeconds ?? 5,
    now: options.now ?? Date.now,
    randomBytes: options.randomBytes ?? webRandomBytes,
    emit,
    emitFor,
    logger,
    telemetry,
    realm: issuer,
    verifiedTokens: shared.verifiedTokens ?? new VerifiedTokenCache(),
    clientMetadataDocuments,
    tokenExchange,
    keyRotation,
    trustedIssuers: resolveTrustedIssuers(options.trustedIssuers, issuer),
    revocationMirror,
    requirePushedRequests: pushRequirement(options.pushedAuthorizationRequests, fapi2),
    dpop: dpopSettings(options.dpop, options.randomBytes ?? webRandomBytes, fapi2),
    securityProfile: fapi2 ? 'fapi2' : undefined,
    confidentialClientsOnly: onlyConfidential,
    rememberConsent: consentPolicy(options.consent),
  };
  return { ...base, features: assembleFeatures(FEATURES, options, base) };
}

/**
 * The features of an instance whose options turn every feature on that can add routes: what
 * `createGatehouseHost`'s router must know of every instance (its handlers are never called).
 */
export function everyFeature(): AssembledFeatures {
  return assembleFeatures(
    FEATURES,
    { dynamicRegistration: {} } as GatehouseOptions,
    { trustedIssuers: new Map() } as unknown as Omit<Context, 'keys'>,
  );
}

/**
 * The features of an instance, in the order their grant types and discovery members are listed.
 * Adding a feature is one line here (`feature.ts`).
 */
const FEATURES: readonly Feature[] = [
  coreGrantsFeature,
  deviceAuthorizationFeature,
  pushedAuthorizationRequestsFeature,
  dynamicRegistrationFeature,
  tokenExchangeFeature,
  jwtBearerFeature,
  extensionGrantsFeature,
];

/**
 * The algorithms `keyRotation` stores keys for, as far as `checkKeys` needs them (they sign, so
 * `keys` need not); `keyRotationSettings` checks the option itself.
 */
function rotatedAlgorithms(options: GatehouseOptions, algorithm: SigningAlgorithm): SigningAlgorithm[] {
  if (typeof options.keyRotation !== 'object' || options.keyRotation === null) return [];
  const given = options.keyRotation.algorithms ?? [algorithm, 'RS256'];
  return Array.isArray(given) ? given.filter((name) => SIGNING_ALGORITHMS.includes(name)) : [];
}

/** The `claims` option: a function, or nothing. */
function claimsHook(hook: GatehouseOptions['claims']): GatehouseOptions['claims'] {
  if (hook !== undefined && typeof hook !== 'function')
    throw new ConfigurationError(
      'claims: expected a function ({ target, sub, clientId, scopes, resources, user }) => claims.',
      { code: 'ERR_CONFIG_INVALID_OPTION', option: 'claims' },
    );
  return hook;
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

/**
 * The instance's stores, guarded: the view of `instanceId` (default: the issuer) when `storage` is
 * an engine, else the stores given, all of them (`withMemoryFallback` completes a partial set
 * explicitly); none given means this instance alone, in memory.
 */
function instanceStorage(
  options: GatehouseOptions,
  issuer: string,
  timeoutMs: number,
  telemetry: Telemetry | undefined,
): { storage: InstanceStores; revocationMirror: RevocationMirror | undefined } {
  const given: object = options.storage ?? memoryStorage();
  if (typeof given !== 'object' || given === null) {
    throw new ConfigurationError(
      'storage: expected a storage engine or an object of stores (grants, clients, kv).',
      { code: 'ERR_CONFIG_INVALID_OPTION', option: 'storage' },
    );
  }
  let view: InstanceStorage;
  if (isStorageEngine(given)) {
    let instanceId: string;
    try {
      instanceId = checkInstanceId(options.instanceId ?? issuer);
    } catch (error) {
      throw new ConfigurationError((error as Error).message, { option: 'instanceId', cause: error });
    }
    view = given.instance(instanceId);
    requireAllStores(view, `storage: the engine's view of instance "${instanceId}"`);
  } else {
    if (options.instanceId !== undefined) {
      throw new ConfigurationError(
        'instanceId: only applies when `storage` is a storage engine (with `instance()`); these stores already belong to one instance.',
        { code: 'ERR_CONFIG_CONFLICTING_OPTIONS', option: 'instanceId' },
      );
    }
    requireAllStores(given, 'storage');
    view = given as InstanceStorage;
  }
  if (
    (typeof view.grants.revokeSubject === 'function') !==
    (typeof view.grants.subjectRevokedAt === 'function')
  ) {
    throw new ConfigurationError(
      'storage.grants: revokeSubject and subjectRevokedAt come together (a user mark is written by one and read by the other).',
      { code: 'ERR_CONFIG_STORE_CAPABILITY', option: 'storage.grants' },
    );
  }
  let grants = guardStore(view.grants, timeoutMs);
  const revocationMirror = pushedRevocations(options, view.grants);
  if (revocationMirror) {
    grants = mirroredGrantStore(grants, revocationMirror);
    if (telemetry) revocationMirror.onLag = (ms) => telemetry.revocationLag(ms);
  }
  const store = <T extends object>(given: T, name: string): T => {
    const guarded = guardStore(given, timeoutMs);
    return telemetry ? tracedStore(guarded, name, telemetry) : guarded;
  };
  // Sessions, consents, rate limits and replay ids are Gatehouse's own, on the guarded `kv`.
  const kv = store(view.kv, 'kv');
  return {
    storage: {
      grants: telemetry ? tracedStore(grants, 'grants', telemetry) : grants,
      clients: store(view.clients, 'registeredClients'),
      kv,
      ...stateStores({ kv }),
    },
    revocationMirror,
  };
}

/**
 * The revocation mirror of `pushedRevocations`, subscribed to the unguarded grant store. Left out,
 * the option follows the store: on for an engine shared by processes that asks for it
 * (`pushedRevocationsByDefault`, the Redis and PostgreSQL engines), off otherwise.
 */
function pushedRevocations(options: GatehouseOptions, grants: GrantStore): RevocationMirror | undefined {
  const given =
    options.pushedRevocations ??
    (grants.pushedRevocationsByDefault === true && typeof grants.watchRevocations === 'function');
  if (given === false) return undefined;
  if (typeof grants.watchRevocations !== 'function') {
    throw new ConfigurationError(
      'pushedRevocations: the grant store cannot push revocations (it has no watchRevocations); remove the option to check each request against the store.',
      { code: 'ERR_CONFIG_STORE_CAPABILITY', option: 'pushedRevocations' },
    );
  }
  const settings = given === true ? {} : given;
  const maxLagMs = count('pushedRevocations.maxLagMs', settings.maxLagMs, 1000);
  if (maxLagMs < 50 || maxLagMs > 60_000)
    throw new ConfigurationError('pushedRevocations.maxLagMs: expected 50 to 60000 ms.', {
      option: 'pushedRevocations.maxLagMs',
    });
  const maxEntries = count('pushedRevocations.maxEntries', settings.maxEntries, 1_000_000);
  return new RevocationMirror(
    (listener) => grants.watchRevocations!(listener),
    { maxLagMs, maxEntries },
    options.logger ?? console,
    options.now ?? Date.now,
  );
}

/**
 * Keys generated at start and never stored sign tokens that die with the process: fine for a demo or
 * a test, a silent outage in production (every restart signs users out, and other processes refuse
 * the tokens). Under `NODE_ENV=production` they need `allowEphemeralKeys: true`. The environment is
 * read through `globalThis` so runtimes without `process` (workerd) are unaffected.
 */
function refuseEphemeralKeysInProduction(options: GatehouseOptions): void {
  const nodeEnv = (globalThis as { process?: { env?: Record<string, string | undefined> } }).process?.env
    ?.NODE_ENV;
  if (nodeEnv !== 'production' || options.allowEphemeralKeys === true) return;
  const index = options.keys.findIndex((key) => isEphemeralKey(key));
  if (index === -1) return;
  throw new ConfigurationError(
    `keys[${index}]: a key generated by generateKeys() in this process, with NODE_ENV=production: its tokens stop verifying when the process restarts and no other process can verify them. Store a key (\`npx gatehouse keys generate\`, or \`npx gatehouse keys generate --openid\` for an OpenID Provider's ES256 + RS256 pair, then read it from a secret) or set allowEphemeralKeys: true.`,
    { code: 'ERR_CONFIG_INVALID_KEY', option: `keys[${index}]` },
  );
}

/** `GATEHOUSE_DEBUG=1` (or `true`) in the environment, read through `globalThis` (no `process` on workerd). */
function debugFromEnvironment(): boolean {
  const value = (globalThis as { process?: { env?: Record<string, string | undefined> } }).process?.env
    ?.GATEHOUSE_DEBUG;
  return value === '1' || value === 'true';
}

/**
 * The instance's logger: the host's, with `debug` only when the debug log is on, so that the code
 * that refuses a request checks one property and builds no line when it is off.
 */
function withDebugLog(logger: Logger, debug: boolean): Logger {
  const warn = (message: string, ...details: unknown[]) => logger.warn(message, ...details);
  const error = (message: string, ...details: unknown[]) => logger.error(message, ...details);
  if (!debug) return { warn, error };
  const write = logger.debug ? logger.debug.bind(logger) : console.debug.bind(console);
  return { warn, error, debug: write };
}

/**
 * Joins the resolved options and the imported keys into the handlers' context. With stored keys
 * (`keyRotation`), `keys` is the keyring's current set, read anew at each access: code that needs
 * two things of one key (a header's `kid` and the signature) reads `ctx.keys` once.
 */
export function toContext(resolved: ResolvedOptions, keys: KeySet | (() => KeySet)): Context {
  // The features' parts stay out: the routes and endpoints were built with them.
  const { features: _built, ...shared } = resolved;
  if (typeof keys !== 'function') return { ...shared, keys };
  const context = { ...shared } as Context;
  Object.defineProperty(context, 'keys', { get: keys, enumerable: true });
  return context;
}

/** Whether `prefix` is `/` or a whole-segment prefix of `path` (`/a` of `/a/b`, never of `/ab`). */
function isPathPrefix(prefix: string, path: string): boolean {
  if (prefix === '/') return true;
  if (!prefix.startsWith('/') || prefix.endsWith('/')) return false;
  return path === prefix || path.startsWith(`${prefix}/`);
}

/** The `consent` option's hook, checked. */
function consentPolicy(given: GatehouseOptions['consent']): ConsentOptions['remember'] {
  if (given === undefined) return undefined;
  if (
    typeof given !== 'object' ||
    given === null ||
    (given.remember !== undefined && typeof given.remember !== 'function')
  )
    throw new ConfigurationError(
      'consent.remember: expected a function (consent) => { scopes, resources, ttl }.',
      {
        code: 'ERR_CONFIG_INVALID_OPTION',
        option: 'consent.remember',
      },
    );
  return given.remember;
}
