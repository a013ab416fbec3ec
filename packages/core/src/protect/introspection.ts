import { importJWK, SignJWT } from 'jose';
import { ConfigurationError, oauthError } from '../errors.js';
import { addressPayer, tooManyRequests } from '../http/address-rate-limit.js';
import { BoundedFetchCache, type Loaded } from '../http/bounded-fetch-cache.js';
import { defaultTransport } from '../http/default-transport.js';
import {
  guardedFetch,
  HOST_CONFIGURED_URL_POLICY,
  type OutboundFetch,
  OutboundFetchError,
} from '../http/guarded-fetch.js';
import type { AddressPolicy } from '../http/ip-address.js';
import { JWT_BEARER_ASSERTION_TYPE } from '../oauth2/client-auth/private-key-jwt.js';
import { ASSERTION_SIGNING_ALGORITHMS } from '../oauth2/jwt-assertion.js';
import { fairShareBudget } from '../storage/kv/fair-share.js';
import { kvRateLimitStore } from '../storage/kv/rate-limits.js';
import { memoryKeyValueStore } from '../storage/memory/key-value.js';
import { type EpochMs, secondsToMs } from '../time.js';
import { hashSecret, randomSecret } from '../tokens/secrets.js';

/*
 * The introspection side of `resourceServer()` (RFC 7662): asks the issuer's introspection
 * endpoint whether a token is active, as a confidential client (`client_secret_basic`, RFC 6749
 * §2.3.1, or `private_key_jwt`, RFC 7523 §2.2), and keeps active answers for a while, inactive ones
 * for a few seconds. It does not parse the token: opaque tokens and JWTs are asked about alike.
 * What the answer means for the request is `resource-server.ts`'s.
 *
 * Every call costs the issuer work, and with `private_key_jwt` one assertion id charged to this
 * client's replay quota there: so the calls that anonymous callers cause with made-up tokens are
 * budgeted per client network before they are made (issue 41, N1).
 */

/** The `introspection` option of `resourceServer()`. */
export interface IntrospectionOptions {
  /**
   * The resource server's client id at the issuer: a confidential client whose registration lists
   * this resource in `introspects` (Gatehouse reports a token active only to its holder's client
   * or to a resource server it is meant for, RFC 7662 §4).
   */
  readonly clientId: string;
  /**
   * That client's secret, sent with HTTP Basic (`client_secret_basic`, RFC 6749 §2.3.1). Give
   * either this or {@link privateKey}.
   */
  readonly clientSecret?: string;
  /**
   * That client's private key (a private JWK with its `alg`, e.g. one of `generateKeys()`), for
   * `private_key_jwt` (RFC 7523 §2.2): each call carries a new assertion signed with it (`iss` =
   * `sub` = the client, `aud` = the issuer, a 60 s lifetime, a fresh `jti`); the client registers
   * the public half (`jwks` or `jwksUri`). Give either this or {@link clientSecret}.
   */
  readonly privateKey?: Readonly<Record<string, unknown>>;
  /**
   * The introspection endpoint. Default: the issuer's metadata `introspection_endpoint` (RFC 8414
   * §3, fetched once from `/.well-known/oauth-authorization-server{issuer path}`).
   */
  readonly endpoint?: string;
  /**
   * Seconds an active answer is reused without asking again, never past the token's `exp`: a
   * token revoked meanwhile keeps working here for at most this long. `0` asks on every request.
   * Default 30.
   */
  readonly cacheTtl?: number;
  /**
   * Seconds an inactive answer is reused: the same unknown, expired or revoked token sent again
   * is refused (401) without asking again, so a made-up token repeated costs one call, not one per
   * request. Short on purpose: a token the issuer called inactive does not become active later in
   * practice (an issuer reading a lagging replica might answer a token issued a moment ago
   * inactive), but such a token is refused here for at most this long. `0` keeps none. Default 5,
   * at most 60. Inactive answers have their own eighth of {@link maxCacheBytes}, so they never push
   * active answers out.
   */
  readonly inactiveCacheTtl?: number;
  /** Deadline of one call to the endpoint (connection, answer and body), in ms. Default 5000. */
  readonly timeoutMs?: number;
  /**
   * Estimated bytes of memory the kept answers may take, least recently used dropped first:
   * seven eighths for active answers, one eighth for inactive ones (all of it for active answers
   * with `inactiveCacheTtl: 0`). Default 4 MiB.
   */
  readonly maxCacheBytes?: number;
  /** Calls to the endpoint in flight at once; beyond it a request is answered 503. Default 32. */
  readonly maxConcurrent?: number;
  /**
   * Calls answered inactive (a made-up, expired or revoked token) that one client network (an IPv4
   * address, an IPv6 /64: see `clientAddress` of `resourceServer()`) may cause per
   * {@link inactiveWindowSeconds}. Beyond it, that network's requests with a token that has no
   * kept answer get 429 `too_many_requests` with `Retry-After` (the end of the window) and no call
   * is made; tokens with a kept answer keep working, other networks are not affected. Requests
   * without a known client address are not counted. Default 60.
   */
  readonly maxInactivePerNetwork?: number;
  /**
   * The same budget for a network's aggregate (an IPv4 /24, an IPv6 /48), which holds however many
   * addresses or /64s one party rotates through. Default 300.
   */
  readonly maxInactivePerAggregate?: number;
  /** The window of {@link maxInactivePerNetwork} and {@link maxInactivePerAggregate}, in seconds. Default 60. */
  readonly inactiveWindowSeconds?: number;
  /**
   * Ask only about tokens the issuer signed: before a call, the token must be a JWT whose
   * signature verifies with the issuer's published keys (`jwksUri`, default the issuer's JWKS,
   * fetched and trusted as without introspection) and whose `iss` is the issuer; anything else is
   * refused here (401 `invalid_token`) and costs the issuer nothing. Made-up tokens then cost
   * neither a call nor a replay id of this resource server's client at the issuer, however many
   * networks send them. Default `true`: Gatehouse's access tokens are JWTs. `false` for an issuer
   * whose tokens are opaque (every token is then asked about, within the budgets above).
   */
  readonly signedTokensOnly?: boolean;
}

/** An introspection answer (RFC 7662 §2.2), as parsed. */
export type IntrospectionAnswer = Readonly<Record<string, unknown>>;

/**
 * Asks about a token presented from `clientAddress` (`undefined`: unknown); throws 503
 * `temporarily_unavailable` when the endpoint cannot answer, 429 `too_many_requests` when that
 * caller's network is past its budget of inactive answers and the token has no kept answer.
 */
export type Introspect = (token: string, clientAddress: string | undefined) => Promise<IntrospectionAnswer>;

/** Largest answer read from the endpoint or the metadata: far above any real one. */
const MAX_ANSWER_BYTES = 64 * 1024;
/** Bookkeeping of a kept answer besides its text (the entry, the key, the parsed object). */
const ENTRY_OVERHEAD_BYTES = 512;
/** The share of `maxCacheBytes` inactive answers may take. */
const INACTIVE_SHARE = 1 / 8;
/** What a kept inactive answer is answered as (RFC 7662 §2.2: nothing else may be relied on). */
const INACTIVE: IntrospectionAnswer = Object.freeze({ active: false });
/**
 * Windows of the inactive-answer budgets counted at once (networks and aggregates, each window a
 * counter and its end in a bounded memory table, about 2 MB): as the instance's fetch budgets.
 */
const MAX_COUNTED_WINDOWS = 10_000;

/**
 * The introspection of `issuer`'s tokens with `options`. The endpoint was configured by the host,
 * not named by a request, so it may sit on a private network (`allowAnyAddress`); it must still be
 * https (or http to a loopback host): the client's secret and the tokens cross it.
 */
export function introspection(
  issuer: string,
  options: IntrospectionOptions,
  fetch: OutboundFetch | undefined,
  now: () => number,
  signedByIssuer?: (token: string) => Promise<boolean>,
): Introspect {
  checkOptions(options);
  const transport = fetch ?? defaultTransport().fetch;
  const policy = HOST_CONFIGURED_URL_POLICY;
  const timeoutMs = options.timeoutMs ?? 5000;
  const cacheMs = secondsToMs(options.cacheTtl ?? 30);
  const inactiveMs = secondsToMs(options.inactiveCacheTtl ?? 5);
  const maxConcurrent = options.maxConcurrent ?? 32;
  const maxBytes = options.maxCacheBytes ?? 4 * 1024 * 1024;
  const inactiveBytes = inactiveMs > 0 ? Math.floor(maxBytes * INACTIVE_SHARE) : 0;
  // Every call goes to one endpoint, so the per-origin cap is the global one; calls are budgeted
  // per client network by `budget` (inactive answers only), not by the cache; failures are not
  // remembered (the next request asks again, within the caps).
  const cache = new BoundedFetchCache<IntrospectionAnswer>(
    {
      maxBytes: maxBytes - inactiveBytes,
      maxConcurrent,
      maxConcurrentPerOrigin: maxConcurrent,
      maxConcurrentPerAddress: Number.POSITIVE_INFINITY,
      failureMs: 0,
    },
    'token introspections',
  );
  // Inactive answers apart, in a share of their own: a flood of made-up tokens pushes out only
  // other inactive answers, never an active one. This cache never fetches (`peek`, `remember`).
  const inactive = new BoundedFetchCache<IntrospectionAnswer>(
    {
      maxBytes: inactiveBytes,
      maxConcurrent: 0,
      maxConcurrentPerOrigin: 0,
      maxConcurrentPerAddress: 0,
      failureMs: 0,
    },
    'token introspections',
  );
  const budget = inactiveBudget(options);
  const authenticate = clientAuthentication(issuer, options);
  const endpoint = memoizeSuccess(async () =>
    options.endpoint === undefined
      ? await discoverEndpoint(issuer, transport, policy, timeoutMs)
      : new URL(options.endpoint),
  );

  const ask = async (url: URL, token: string, at: number): Promise<Loaded<IntrospectionAnswer>> => {
    const post = await authenticate({ token, token_type_hint: 'access_token' });
    let body: string;
    try {
      ({ body } = await guardedFetch(url, {
        policy,
        transport,
        maxBytes: MAX_ANSWER_BYTES,
        timeoutMs,
        accept: 'application/json',
        post,
      }));
    } catch (error) {
      throw unavailable(unansweredDescription(error), error);
    }
    let answer: unknown;
    try {
      answer = JSON.parse(body);
    } catch (error) {
      throw unavailable('The token introspection endpoint answered something else than JSON.', error);
    }
    if (typeof answer !== 'object' || answer === null || Array.isArray(answer))
      throw unavailable('The token introspection endpoint answered something else than an object.');
    const record = answer as IntrospectionAnswer;
    // An active answer is kept here, never past the token's `exp` (RFC 7662 §4: a cached answer
    // must not outlive the token); an inactive one is kept apart (`inactive`), never here.
    const exp = typeof record.exp === 'number' ? record.exp * 1000 : at;
    const expiresAt = record.active === true ? Math.min(exp, at + cacheMs) : at;
    return {
      value: record,
      bytes: 2 * body.length + ENTRY_OVERHEAD_BYTES,
      expiresAt,
      idleMs: Math.max(0, expiresAt - at),
    };
  };

  return async (token, clientAddress) => {
    const url = await endpoint();
    // Keyed by the token's hash, not the token (no bearer credential kept in memory), under the
    // endpoint's URL so that the cache's per-origin accounting sees the endpoint.
    const key = `${url.href}#${await hashSecret(token)}`;
    const at = now();
    if (inactive.peek(key, at) !== undefined) return INACTIVE;
    // The budget is checked, and the signature, only when a call is to be made (no kept answer,
    // none in flight); the budget is charged by the caller whose call came back inactive.
    const caller = {
      address: clientAddress,
      charge: async () => {
        await budget.check(clientAddress, at);
        if (signedByIssuer && !(await signedByIssuer(token))) throw NOT_SIGNED;
      },
    };
    return cache
      .get(
        key,
        at,
        async () => {
          const loaded = await ask(url, token, at);
          if (loaded.value.active !== true) {
            const answeredAt = now();
            await budget.charge(clientAddress, answeredAt);
            if (inactiveMs > 0)
              inactive.remember(key, answeredAt, {
                value: INACTIVE,
                bytes: ENTRY_OVERHEAD_BYTES,
                expiresAt: answeredAt + inactiveMs,
                idleMs: inactiveMs,
              });
          }
          return loaded;
        },
        { caller },
      )
      .catch((error: unknown) => {
        if (error === NOT_SIGNED) return INACTIVE;
        throw error;
      });
  };
}

/** Thrown past the cache when a token is not the issuer's: answered inactive without a call. */
const NOT_SIGNED = Symbol('not signed by the issuer');

/**
 * The budget of calls answered inactive per client network and per aggregate (`addressPayer`: the
 * address, an IPv6 /64, and its /24 or /48), a fair share (`storage/kv/fair-share.ts`) counted in
 * a bounded table of this process (the resource server has no store of the instance's; the
 * windows are this process's calls). Only inactive answers are counted: a network presenting
 * valid tokens is never limited, however many.
 *
 * Over budget, a call is not made and the request gets 429 `too_many_requests` (RFC 6585 §4) with
 * `Retry-After`, not 401 `invalid_token`: the token was not asked about, so it may be valid, and
 * RFC 6750 §3.1 has no error for "too many"; a 401 would tell a client holding a good token to
 * throw it away. When the table is full, the aggregate holding the most windows gives up its
 * oldest (and is refused until they would have ended), so a flood from many networks never
 * refuses a network under its share, nor any token with a kept answer. Requests without an
 * address are not counted: they would share one budget that any anonymous caller could spend.
 */
function inactiveBudget(options: IntrospectionOptions) {
  const windowMs = secondsToMs(options.inactiveWindowSeconds ?? 60);
  const perNetwork = options.maxInactivePerNetwork ?? 60;
  const perAggregate = options.maxInactivePerAggregate ?? 300;
  const budget = fairShareBudget(
    kvRateLimitStore(memoryKeyValueStore({ maxEntries: MAX_COUNTED_WINDOWS })),
    'inactive',
    windowMs,
  );
  const refused = (resetAt: EpochMs, at: EpochMs) =>
    tooManyRequests(
      'Too many unknown tokens were presented from this network; try again later.',
      resetAt,
      at,
    );
  return {
    /** Throws 429 when `address`'s network or aggregate has spent its budget. */
    async check(address: string | undefined, at: EpochMs): Promise<void> {
      if (address === undefined) return;
      const room = await budget.check(await addressPayer(address, perNetwork, perAggregate), at);
      if (!room.charged) throw refused(room.retryAt, at);
    },
    /** Counts one inactive answer to `address`'s network and aggregate. */
    async charge(address: string | undefined, at: EpochMs): Promise<void> {
      if (address === undefined) return;
      await budget.charge(await addressPayer(address, perNetwork, perAggregate), at);
    },
  };
}

/** Refuses options that cannot work, when the resource server is made rather than per request. */
function checkOptions(options: IntrospectionOptions): void {
  const invalid = (option: string, message: string) =>
    new ConfigurationError(`resourceServer: introspection.${option} ${message}`, {
      code: 'ERR_CONFIG_INVALID_OPTION',
      option: `introspection.${option}`,
    });
  if (typeof options.clientId !== 'string' || options.clientId === '')
    throw invalid('clientId', 'must be a non-empty string (a confidential client of the issuer).');
  if ((options.clientSecret === undefined) === (options.privateKey === undefined))
    throw invalid('clientSecret', 'or introspection.privateKey must be given, and only one of them.');
  if (
    options.clientSecret !== undefined &&
    (typeof options.clientSecret !== 'string' || options.clientSecret === '')
  )
    throw invalid('clientSecret', 'must be a non-empty string.');
  const key = options.privateKey;
  if (
    key !== undefined &&
    (typeof key !== 'object' ||
      key === null ||
      typeof key.d !== 'string' ||
      !(ASSERTION_SIGNING_ALGORITHMS as readonly unknown[]).includes(key.alg))
  )
    throw invalid(
      'privateKey',
      `must be a private JWK (with "d") whose "alg" is one of ${ASSERTION_SIGNING_ALGORITHMS.join(', ')}.`,
    );
  if (options.endpoint !== undefined && !URL.canParse(options.endpoint))
    throw invalid('endpoint', `must be an absolute URL, got ${JSON.stringify(options.endpoint)}.`);
  for (const option of ['cacheTtl', 'timeoutMs', 'maxCacheBytes', 'maxConcurrent'] as const) {
    const value = options[option];
    const positive = option === 'timeoutMs' || option === 'maxConcurrent';
    if (value !== undefined && !(Number.isFinite(value) && (positive ? value > 0 : value >= 0)))
      throw invalid(
        option,
        `must be a ${positive ? 'positive' : 'non-negative'} number, got ${String(value)}.`,
      );
  }
  const inactiveTtl = options.inactiveCacheTtl;
  if (inactiveTtl !== undefined && !(Number.isFinite(inactiveTtl) && inactiveTtl >= 0 && inactiveTtl <= 60))
    throw invalid(
      'inactiveCacheTtl',
      `must be a number of seconds from 0 to 60 (an inactive answer is kept briefly), got ${String(inactiveTtl)}.`,
    );
  for (const option of [
    'maxInactivePerNetwork',
    'maxInactivePerAggregate',
    'inactiveWindowSeconds',
  ] as const) {
    const value = options[option];
    if (value !== undefined && !(Number.isInteger(value) && value >= 1))
      throw invalid(option, `must be a positive whole number, got ${String(value)}.`);
  }
}

/** RFC 8414 §3.1: the metadata of `issuer`, its `introspection_endpoint`; checks `issuer` (§3.3). */
async function discoverEndpoint(
  issuer: string,
  transport: OutboundFetch,
  policy: AddressPolicy,
  timeoutMs: number,
): Promise<URL> {
  const base = new URL(issuer);
  const path = base.pathname === '/' ? '' : base.pathname;
  const location = new URL(`/.well-known/oauth-authorization-server${path}`, base.origin);
  let metadata: Record<string, unknown>;
  try {
    const { body } = await guardedFetch(location, {
      policy,
      transport,
      maxBytes: MAX_ANSWER_BYTES,
      timeoutMs,
      accept: 'application/json',
    });
    metadata = JSON.parse(body);
  } catch (error) {
    throw unavailable("The issuer's metadata could not be fetched.", error);
  }
  if (metadata?.issuer !== issuer)
    throw unavailable(`The metadata at ${location.href} is not the issuer's (RFC 8414 section 3.3).`);
  const endpoint = metadata.introspection_endpoint;
  if (typeof endpoint !== 'string' || !URL.canParse(endpoint))
    throw unavailable(`The issuer's metadata names no introspection_endpoint.`);
  return new URL(endpoint);
}

/** `load` run once, its result kept; a failure is not kept (the next call tries again). */
function memoizeSuccess<T>(load: () => Promise<T>): () => Promise<T> {
  let pending: Promise<T> | undefined;
  return () => {
    pending ??= load();
    pending.catch(() => {
      pending = undefined;
    });
    return pending;
  };
}

/** A call's form and header fields with the client's credentials (RFC 6749 §2.3, RFC 7523 §2.2). */
function clientAuthentication(
  issuer: string,
  options: IntrospectionOptions,
): (fields: Record<string, string>) => Promise<{ form: URLSearchParams; headers: Record<string, string> }> {
  const { clientId, clientSecret, privateKey } = options;
  if (clientSecret !== undefined) {
    const headers = { Authorization: `Basic ${btoa(`${formEncode(clientId)}:${formEncode(clientSecret)}`)}` };
    return async (fields) => ({ form: new URLSearchParams(fields), headers });
  }
  const jwk = privateKey as Record<string, unknown> & { alg: string; kid?: string };
  const key = memoizeSuccess(() => importJWK(jwk as Parameters<typeof importJWK>[0], jwk.alg));
  return async (fields) => {
    let assertion: string;
    try {
      const now = Math.floor(Date.now() / 1000);
      assertion = await new SignJWT({})
        .setProtectedHeader({ alg: jwk.alg, typ: 'JWT', ...(jwk.kid === undefined ? {} : { kid: jwk.kid }) })
        .setIssuer(clientId)
        .setSubject(clientId)
        .setAudience(issuer)
        .setIssuedAt(now)
        .setExpirationTime(now + 60)
        .setJti(randomSecret())
        .sign(await key());
    } catch (error) {
      throw unavailable('The introspection client key cannot sign an assertion.', error);
    }
    return {
      form: new URLSearchParams({
        ...fields,
        client_id: clientId,
        client_assertion_type: JWT_BEARER_ASSERTION_TYPE,
        client_assertion: assertion,
      }),
      headers: {},
    };
  };
}

/** The form-urlencoding RFC 6749 §2.3.1 applies to client credentials before Basic. */
function formEncode(value: string): string {
  return new URLSearchParams({ v: value }).toString().slice(2);
}

/**
 * Why the endpoint gave no answer. A 400 or 401 is the endpoint refusing the resource server's own
 * client (RFC 7662 §2.1 requires its authentication; RFC 6749 §5.2 `invalid_client`): a
 * configuration mistake to fix here, not an outage to wait out, so the description says which.
 */
function unansweredDescription(error: unknown): string {
  if (error instanceof OutboundFetchError && (error.status === 400 || error.status === 401))
    return `The token introspection endpoint refused this resource server's client (HTTP ${error.status}): check introspection.clientId, its clientSecret or privateKey, and that the instance registers that client.`;
  return 'The token introspection endpoint could not be reached.';
}

/** 503: the endpoint cannot tell, so the token is neither valid nor invalid (never a 500). */
function unavailable(description: string, cause?: unknown) {
  return oauthError('temporarily_unavailable', description, {
    retryAfter: 1,
    ...(cause === undefined ? {} : { cause }),
  });
}
