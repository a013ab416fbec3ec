import { answerOf } from '../adapter/answer.js';
import { authenticateNow } from '../adapter/with-authentication.js';
import type { Awaitable } from '../awaitable.js';
import {
  ConfigurationError,
  errorAnswer,
  oauthError,
  StorageUnavailableError,
  UsageError,
} from '../errors.js';
import type { Logger } from '../events.js';
import type { ResolvedOptions } from '../feature.js';
import { buildGatehouse, type Gatehouse, instanceRoutes } from '../gatehouse.js';
import { type Answer, toResponse } from '../http/reply.js';
import { notFound, Router } from '../http/router.js';
import type { GatehouseOptions } from '../options.js';
import { attachInternals } from '../protect/instance-internals.js';
import type { AuthenticateOptions, AuthenticationResult } from '../protect/types.js';
import { everyFeature } from '../resolve-options.js';
import { isStorageEngine } from '../storage/instance-id.js';
import { memoryEngine } from '../storage/memory/engine.js';
import type { StorageEngine } from '../storage/types.js';
import { DEFAULT_VERIFIED_TOKEN_CACHE_SIZE, VerifiedTokenCache } from '../tokens/verified-token-cache.js';
import { attachHostInternals } from './host-internals.js';
import { isInstanceName } from './instance-name.js';
import { LiveInstances } from './live-instances.js';

/**
 * One instance's options as the host's resolver returns them: everything of
 * {@link GatehouseOptions} except what the host decides (`issuer` from the layout, `storage` the
 * host's shared engine, `instanceId` the instance name).
 */
export type HostedInstanceOptions = Omit<GatehouseOptions, 'issuer' | 'storage' | 'instanceId'>;

/** Where instances live under the host's origin(s), for layouts other than `/{instance}/…`. */
export interface InstanceLayout {
  /**
   * The name of the instance `url` is for (e.g. its subdomain), or `undefined` when the URL is for
   * none (then `handles` is false and `fetch` answers 404). Names failing the name rule get 404.
   */
  nameOf(url: URL): string | undefined;
  /** The issuer (`{base_url}`) of the instance `name`, e.g. `https://${name}.example.com`. */
  issuerOf(name: string): string;
}

/** Options of {@link createGatehouseHost}. */
export interface GatehouseHostOptions {
  /**
   * The origin of the default layout, e.g. `https://auth.example.com`: instance `acme` has the issuer
   * `https://auth.example.com/acme`, its routes below `/acme/…` and its RFC 8414 metadata also at
   * `/.well-known/oauth-authorization-server/acme`. Required unless {@link layout} is given.
   */
  readonly origin?: string;
  /** Another layout (e.g. one subdomain per instance) instead of `/{instance}/…` under {@link origin}. */
  readonly layout?: InstanceLayout;
  /**
   * The options of instance `name`, or `null` when there is no such instance (answered 404, nothing
   * created, no storage touched). Called the first time a name is requested, again after
   * {@link GatehouseHost.invalidate} or eviction, and for every request naming an unknown instance
   * (keep it cheap: an indexed lookup). Only names passing the name rule (1–63 characters, letters,
   * digits, `-`, `_`, `.`, a letter or digit first; case-sensitive) reach it. A rejection is answered
   * 503 `temporarily_unavailable`, options `createGatehouse` refuses a logged 500.
   */
  resolve(name: string): Awaitable<HostedInstanceOptions | null | undefined>;
  /**
   * The engine every instance's records live in, each under its name as instance id
   * (`redisEngine`, `postgresEngine`, …). Default: one `memoryEngine()` (one process only).
   */
  readonly storage?: StorageEngine;
  /** How many instances are kept alive at once (least recently used first out). Default 1,000. */
  readonly maxLiveInstances?: number;
  /** Verified access tokens remembered, for all instances together. Default 10,000. */
  readonly verifiedTokenCacheSize?: number;
  /** Where the host's own problems (a failing resolver, refused options) are logged. Default `console`. */
  readonly logger?: Logger;
}

/** Many instances under one origin, served by one `fetch`, created on first use. */
export interface GatehouseHost {
  /**
   * Answers every route of every instance (as `Gatehouse.fetch` does for one), finding the instance
   * from the URL. An unknown or malformed instance name gets 404 `not_found`, a failing resolver
   * 503. Never rejects.
   */
  fetch(request: Request): Promise<Response>;
  /**
   * Whether {@link fetch} has a route for this URL (for adapters to fall through): in the default
   * layout, a Gatehouse route below a well-formed `/{name}` (whether `name` exists is not known
   * without the resolver: an unknown one is answered 404). With a custom layout, every URL its
   * `nameOf` names an instance for.
   */
  handles(url: URL | string): boolean;
  /**
   * `Gatehouse.authenticate` of the instance the request is for (in the default layout the first
   * path segment, so it protects the host's own routes below `/{name}/`): a token, session or
   * cookie of one instance never authenticates at another. An unknown instance gets a 404 response.
   */
  authenticate(request: Request, options: AuthenticateOptions): Promise<AuthenticationResult>;
  /** The instance `name`, created if needed; `null` when the resolver knows no such instance. */
  instance(name: string): Promise<Gatehouse | null>;
  /**
   * Forgets the live instance `name` (after its configuration, keys or clients changed): the next
   * request resolves it again. Its records stay in storage. Returns whether it was live.
   */
  invalidate(name: string): boolean;
  /** The issuer of instance `name` in this host's layout. */
  issuerOf(name: string): string;
  /** How many instances are live now (at most `maxLiveInstances`). */
  readonly liveInstances: number;
}

const HOST_OWNED = ['issuer', 'storage', 'instanceId'] as const;

/**
 * Serves many instances under one origin from one process (issue 18): one `fetch` and one
 * `authenticate` for all of them, each instance created from the options `resolve(name)` returns
 * when first requested, kept in a bounded least-recently-used set, and stored in one shared
 * engine under its name, so instances with identical client ids, usernames or grant ids never see
 * each other's records. Each instance has its own keys, clients, users, lifetimes, UI and rate
 * limits; its session cookie has `Path=/{name}` (a browser keeps one session per instance).
 *
 * ```ts
 * const host = createGatehouseHost({
 *   origin: 'https://auth.example.com',
 *   storage: postgresEngine({ pool }),
 *   resolve: async (name) => tenantOptions(await db.findTenant(name)), // null when unknown
 * });
 * app.use(gatehouse(host)); // Express, like one instance
 * ```
 *
 * Throws `ConfigurationError` for unusable host options; instance options are checked when the
 * instance is created.
 */
export function createGatehouseHost(options: GatehouseHostOptions): GatehouseHost {
  if (!options || typeof options.resolve !== 'function') {
    throw new ConfigurationError('createGatehouseHost: `resolve(name)` is required.', {
      code: 'ERR_CONFIG_MISSING_OPTION',
      option: 'resolve',
    });
  }
  const logger = options.logger ?? console;
  const storage = options.storage ?? memoryEngine();
  if (!isStorageEngine(storage)) {
    throw new ConfigurationError(
      'storage: a storage engine (with `instance(id)`) is required, e.g. redisEngine(…) or postgresEngine(…).',
      { option: 'storage' },
    );
  }
  const maxLive = positive('maxLiveInstances', options.maxLiveInstances, 1000);
  const tokens = new VerifiedTokenCache(
    positive('verifiedTokenCacheSize', options.verifiedTokenCacheSize, DEFAULT_VERIFIED_TOKEN_CACHE_SIZE),
  );
  const layout = options.layout ?? pathLayout(options.origin);

  const create = async (name: string): Promise<Gatehouse | null> => {
    let instanceOptions: HostedInstanceOptions | null | undefined;
    try {
      instanceOptions = await options.resolve(name);
    } catch (error) {
      logger.error(`gatehouse host: resolving instance "${name}" failed`, error);
      throw new StorageUnavailableError(error);
    }
    if (instanceOptions === null || instanceOptions === undefined) return null;
    for (const key of HOST_OWNED) {
      if (key in instanceOptions) {
        throw new ConfigurationError(
          `instance "${name}": \`${key}\` is decided by the host (issuer from the layout, storage the host's engine, instanceId the name).`,
          { code: 'ERR_CONFIG_CONFLICTING_OPTIONS', option: key },
        );
      }
    }
    const instance = buildGatehouse(
      { ...instanceOptions, issuer: layout.issuerOf(name), storage, instanceId: name },
      { verifiedTokens: tokens.share() },
    );
    await instance.ready();
    return instance;
  };
  const live = new LiveInstances(maxLive, create);

  /** The instance a URL is for; `undefined` for none, unknown or malformed names. */
  const instanceNamed = (name: string | undefined): Awaitable<Gatehouse | null> =>
    name === undefined || !isInstanceName(name) ? null : live.obtain(name);
  const instanceFor = (url: URL): Awaitable<Gatehouse | null> => instanceNamed(layout.nameOf(url));
  // The host's own routes (`requireAuth(host, …)` on `/{name}/api/…`) are no Gatehouse routes: in
  // the path layout the instance is the first segment of any path.
  const ownerOf = options.layout
    ? (request: Request) => options.layout!.nameOf(parse(request))
    : (request: Request) => firstSegment(request.url);

  const parse = (request: Request): URL => {
    try {
      return new URL(request.url);
    } catch {
      throw oauthError('invalid_request', 'The request URL is not valid.');
    }
  };

  const answer = async (request: Request): Promise<Answer> => {
    try {
      const instance = await instanceFor(parse(request));
      if (!instance) throw notFound();
      return await answerOf(instance, request);
    } catch (error) {
      return errorAnswer(error, logger);
    }
  };

  const refused = (error: unknown): AuthenticationResult => ({
    ok: false,
    response: toResponse(errorAnswer(error, logger)),
  });
  const authenticateFor = (
    request: Request,
    authOptions: AuthenticateOptions,
  ): Awaitable<AuthenticationResult> => {
    let found: Awaitable<Gatehouse | null>;
    try {
      found = instanceNamed(ownerOf(request));
    } catch (error) {
      return refused(error);
    }
    const use = (instance: Gatehouse | null) =>
      instance ? authenticateNow(instance, request, authOptions) : refused(notFound());
    // A live instance answers a known token in the same turn, as one instance does (bench run H).
    return found instanceof Promise ? found.then(use, refused) : use(found);
  };

  const host: GatehouseHost = {
    async fetch(request) {
      return toResponse(await answer(request));
    },
    handles(input) {
      const url = typeof input === 'string' ? new URL(input) : input;
      const name = layout.nameOf(url);
      return name !== undefined && isInstanceName(name);
    },
    async authenticate(request, authOptions) {
      return authenticateFor(request, authOptions);
    },
    async instance(name) {
      return instanceNamed(name);
    },
    invalidate(name) {
      return live.invalidate(name);
    },
    issuerOf(name) {
      return layout.issuerOf(name);
    },
    get liveInstances() {
      return live.size;
    },
  };
  attachInternals(host, {
    answer,
    authenticateNow: authenticateFor,
    cors: {
      preflight: () => {
        throw new UsageError(
          'A GatehouseHost has no single CORS policy: ask host.instance(name).',
          'ERR_INVALID_INSTANCE',
        );
      },
      apply: () => {
        throw new UsageError(
          'A GatehouseHost has no single CORS policy: ask host.instance(name).',
          'ERR_INVALID_INSTANCE',
        );
      },
    },
    logger,
    // Its instances are named by the path (or the layout) itself; each checks its own requests.
    mountedAt: () => {},
  });
  return attachHostInternals(host, {
    mount: options.layout ? '' : '/:instance',
    nameOf: (url, params) => (options.layout ? options.layout.nameOf(url) : params.instance),
    instanceNamed,
    logger,
  });
}

/**
 * The default layout: `/{name}/…` under `origin`, plus the origin-root aliases of the instance
 * routes (`/.well-known/oauth-authorization-server/{name}`, RFC 8414 §3). The name is the mount
 * parameter of the one router, matched against every route an instance can have.
 */
function pathLayout(origin: string | undefined): InstanceLayout {
  let base: URL;
  try {
    base = new URL(origin ?? '');
  } catch {
    throw new ConfigurationError(
      'origin: an absolute http(s) origin is required for the `/{instance}` layout, e.g. "https://auth.example.com".',
      {
        code: origin === undefined ? 'ERR_CONFIG_MISSING_OPTION' : 'ERR_CONFIG_INVALID_OPTION',
        option: 'origin',
      },
    );
  }
  if ((base.protocol !== 'https:' && base.protocol !== 'http:') || base.origin !== origin) {
    throw new ConfigurationError(
      `origin: "${origin}" is not an origin (scheme://host[:port], no path or slash).`,
      { option: 'origin' },
    );
  }
  // Every route any instance can have (the Auth API's and every feature's included): the
  // instance answers 404 for one it has switched off. Handlers are never called here, so the
  // options only decide which routes exist.
  const router = new Router(
    '/:instance',
    instanceRoutes({
      authApi: { enabled: true },
      // The built-in pages' routes too (an instance without them answers 404 there).
      interactions: { url: undefined },
      features: everyFeature(),
    } as ResolvedOptions),
  );
  return {
    // The path alone, as for one instance: behind a proxy the URL's origin is what the adapter saw.
    nameOf(url) {
      return router.match(url.pathname)?.params.instance;
    },
    issuerOf(name) {
      return `${base.origin}/${name}`;
    },
  };
}

/**
 * `acme` of `http://host/acme/…` (as sent: a percent-encoded name fails the name rule), read from
 * the URL string without parsing it: the bearer check of a known token costs ~20 µs, and parsing
 * the URL would add ~1.5 µs of it. `Request.url` is always serialized absolute, so its path starts
 * at the first `/` after `scheme://`.
 */
function firstSegment(url: string): string | undefined {
  const start = url.indexOf('/', url.indexOf('//') + 2);
  if (start === -1) return undefined;
  let end = start + 1;
  while (end < url.length) {
    const c = url.charCodeAt(end);
    if (c === 47 /* / */ || c === 63 /* ? */ || c === 35 /* # */) break;
    end++;
  }
  return end === start + 1 ? undefined : url.slice(start + 1, end);
}

function positive(name: string, value: number | undefined, fallback: number): number {
  const n = value ?? fallback;
  if (!Number.isInteger(n) || n < 1) {
    throw new ConfigurationError(`${name}: expected a positive whole number, got ${String(value)}.`, {
      option: name,
    });
  }
  return n;
}
