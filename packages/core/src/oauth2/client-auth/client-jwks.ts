import { createLocalJWKSet, type JSONWebKeySet, type JWTVerifyGetKey } from 'jose';
import { BoundedFetchCache, type FetchCaller, type Loaded } from '../../http/bounded-fetch-cache.js';
import { guardedFetch, type OutboundFetch } from '../../http/guarded-fetch.js';
import type { ClientRecord } from '../../storage/types.js';
import type { FetchBudgetSettings } from '../registration/settings.js';

/** What the instance keeps of the `clientJwks` option (validated, defaults filled in). */
export interface ClientJwksPolicy extends FetchBudgetSettings {
  /** Carries the fetch; the guarded fetch checks the URL, deadline and size around it. */
  readonly fetch: OutboundFetch;
  /** Lets `http://` loopback URIs through and the fetch reach loopback addresses (development). */
  readonly allowLoopback: boolean;
  /** Deadline of one fetch, in milliseconds. */
  readonly timeoutMs: number;
  /** Largest key set document read, in bytes. */
  readonly maxBytes: number;
  /** How long a fetched key set is used before it is fetched again, in milliseconds. */
  readonly cacheMs: number;
}

/** RFC 7517 §8.5.1 registers `application/jwk-set+json`; many hosts serve plain JSON. */
const JWK_SET_ACCEPT = 'application/jwk-set+json, application/json';

/** A failed fetch is not retried for this long: clients cannot make the server hammer a host. */
const FAILURE_MS = 30_000;
/** A key set is fetched again for an unknown `kid` (the client rotated) at most this often. */
const REFETCH_MS = 60_000;
/** Fetches one client address may have in flight at once (beyond: 429). */
const MAX_CONCURRENT_PER_ADDRESS = 4;
/** Most keys a client's key set may hold: more is no rotation, it is a way to make us import keys. */
const MAX_KEYS = 32;

/** A key set that could not be fetched or used: remembered, answered as "no keys" (401). */
class UnusableKeySet extends Error {}

/**
 * The key sets of clients registered with `jwksUri` (RFC 7591 §2 `jwks_uri`), fetched through the
 * guarded fetch (`http/guarded-fetch.ts`: the registration chooses where the server connects, so
 * the same SSRF checks as for client ID metadata documents apply) and kept in a
 * {@link BoundedFetchCache}, with the same bounds as client ID metadata documents: a byte budget,
 * fetches in flight capped globally, per origin and per address, each fetch charged to the
 * caller's address, failures remembered for 30 s. One per instance (it lives in the context).
 */
export class ClientJwksCache {
  readonly #policy: ClientJwksPolicy;
  readonly #cache: BoundedFetchCache<JWTVerifyGetKey>;
  readonly #caller: ((request: Request) => FetchCaller) | undefined;

  /** `caller` makes the {@link FetchCaller} of a request (its address and the charge of a fetch). */
  constructor(policy: ClientJwksPolicy, caller?: (request: Request) => FetchCaller) {
    this.#policy = policy;
    this.#caller = caller;
    this.#cache = new BoundedFetchCache(
      {
        maxBytes: policy.maxCacheBytes,
        maxConcurrent: policy.maxConcurrentFetches,
        maxConcurrentPerOrigin: policy.maxConcurrentFetchesPerOrigin,
        maxConcurrentPerAddress: MAX_CONCURRENT_PER_ADDRESS,
        failureMs: FAILURE_MS,
      },
      'client key sets',
    );
  }

  /**
   * The key set at `uri`: cached when fresh, else fetched (charged to the address of `request`).
   * With `stale` (a verification found no key for the assertion's `kid`), a set older than
   * {@link REFETCH_MS} is fetched again first. `undefined` when the set cannot be fetched or used;
   * throws 503 or 429 (`ProtocolError`) when the fetch is refused by the caps or the budget.
   */
  async keySet(
    uri: string,
    now: number,
    stale = false,
    request?: Request,
  ): Promise<JWTVerifyGetKey | undefined> {
    try {
      return await this.#cache.get(uri, now, () => this.#fetch(uri, now), {
        ...(stale ? { refreshOlderThanMs: REFETCH_MS } : {}),
        ...(request && this.#caller ? { caller: this.#caller(request) } : {}),
      });
    } catch (error) {
      if (error instanceof UnusableKeySet) return undefined;
      throw error;
    }
  }

  async #fetch(uri: string, now: number): Promise<Loaded<JWTVerifyGetKey>> {
    const policy = this.#policy;
    let body: string;
    let keys: JWTVerifyGetKey;
    try {
      body = (
        await guardedFetch(new URL(uri), {
          policy: { allowLoopback: policy.allowLoopback },
          transport: policy.fetch,
          maxBytes: policy.maxBytes,
          timeoutMs: policy.timeoutMs,
          accept: JWK_SET_ACCEPT,
        })
      ).body;
      keys = localKeySet(JSON.parse(body));
    } catch (error) {
      // Not a URL, refused by the guarded fetch, unreachable, not JSON or not a key set: the
      // assertion fails (401), and the failure is remembered for FAILURE_MS.
      throw new UnusableKeySet('unusable key set', { cause: error });
    }
    // The parsed set and the keys jose imports from it are about twice the document's text.
    return {
      value: keys,
      bytes: 2 * body.length + 1024,
      expiresAt: now + policy.cacheMs,
      idleMs: policy.cacheMs,
    };
  }
}

/** Key sets of inline `jwks` registrations, by the registration's object (a pure result). */
const inlineSets = new WeakMap<object, JWTVerifyGetKey | undefined>();

/**
 * The key set of a client registered with inline `jwks` (or of a trusted issuer configured with
 * them), or `undefined` when it has none.
 */
export function inlineKeySet(holder: Pick<ClientRecord, 'jwks'>): JWTVerifyGetKey | undefined {
  const jwks = holder.jwks;
  if (!jwks || typeof jwks !== 'object') return undefined;
  if (!inlineSets.has(jwks)) {
    let keys: JWTVerifyGetKey | undefined;
    try {
      keys = localKeySet(jwks);
    } catch {}
    inlineSets.set(jwks, keys);
  }
  return inlineSets.get(jwks);
}

/** A jose key set of a JWKS document (RFC 7517 §5); throws `TypeError` for anything else. */
function localKeySet(document: unknown): JWTVerifyGetKey {
  const keys = (document as { keys?: unknown } | null)?.keys;
  if (!Array.isArray(keys)) throw new TypeError('Not a JWK Set.');
  if (keys.length > MAX_KEYS) throw new TypeError(`A client key set holds at most ${MAX_KEYS} keys.`);
  // Private or symmetric members never belong in a client's published keys: such a set is refused.
  for (const key of keys) {
    if (!key || typeof key !== 'object' || 'd' in key || 'k' in key || key.kty === 'oct') {
      throw new TypeError('A client key set holds public asymmetric keys only.');
    }
  }
  return createLocalJWKSet(document as JSONWebKeySet);
}
