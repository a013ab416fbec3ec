import { createLocalJWKSet, type JSONWebKeySet, type JWTVerifyGetKey } from 'jose';
import { guardedFetch, type OutboundFetch } from '../../http/guarded-fetch.js';
import type { ClientRecord } from '../../storage/types.js';

/** What the instance keeps of the `clientJwks` option (validated, defaults filled in). */
export interface ClientJwksPolicy {
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

/** Most `jwks_uri` documents cached at once per instance (the oldest is dropped beyond it). */
const MAX_CACHED = 1000;
/** A failed fetch is not retried for this long: clients cannot make the server hammer a host. */
const FAILURE_MS = 30_000;
/** A key set is fetched again for an unknown `kid` (the client rotated) at most this often. */
const REFETCH_MS = 60_000;

interface Entry {
  readonly fetchedAt: number;
  /** The key set, or `undefined` when the fetch failed (cached for {@link FAILURE_MS}). */
  readonly keys: JWTVerifyGetKey | undefined;
}

/**
 * The key sets of clients registered with `jwksUri` (RFC 7591 §2 `jwks_uri`), fetched through the
 * guarded fetch (`http/guarded-fetch.ts`: the registration chooses where the server connects, so
 * the same SSRF checks as for client ID metadata documents apply) and cached: at most {@link MAX_CACHED} documents, one fetch per URI
 * at a time, failures remembered briefly. One per instance (it lives in the context).
 */
export class ClientJwksCache {
  readonly #policy: ClientJwksPolicy;
  readonly #entries = new Map<string, Entry>();
  readonly #inFlight = new Map<string, Promise<Entry>>();

  constructor(policy: ClientJwksPolicy) {
    this.#policy = policy;
  }

  /**
   * The key set at `uri`: cached when fresh, else fetched. With `stale` (a verification found no
   * key for the assertion's `kid`), a set older than {@link REFETCH_MS} is fetched again first.
   */
  async keySet(uri: string, now: number, stale = false): Promise<JWTVerifyGetKey | undefined> {
    const cached = this.#entries.get(uri);
    const age = cached ? now - cached.fetchedAt : Number.POSITIVE_INFINITY;
    const fresh = cached?.keys
      ? age < this.#policy.cacheMs && !(stale && age >= REFETCH_MS)
      : age < FAILURE_MS;
    if (fresh) return cached!.keys;
    let pending = this.#inFlight.get(uri);
    if (!pending) {
      pending = this.#fetch(uri, now).finally(() => this.#inFlight.delete(uri));
      this.#inFlight.set(uri, pending);
    }
    return (await pending).keys;
  }

  async #fetch(uri: string, now: number): Promise<Entry> {
    const policy = this.#policy;
    let keys: JWTVerifyGetKey | undefined;
    try {
      const fetched = await guardedFetch(new URL(uri), {
        policy: { allowLoopback: policy.allowLoopback },
        transport: policy.fetch,
        maxBytes: policy.maxBytes,
        timeoutMs: policy.timeoutMs,
        accept: JWK_SET_ACCEPT,
      });
      keys = localKeySet(JSON.parse(fetched.body));
    } catch {
      // Not a URL, refused by the guarded fetch, unreachable, not JSON or not a key set: the
      // assertion fails (401), and the failure is remembered for FAILURE_MS.
    }
    const entry = { fetchedAt: now, keys };
    this.#entries.delete(uri);
    if (this.#entries.size >= MAX_CACHED) this.#entries.delete(this.#entries.keys().next().value!);
    this.#entries.set(uri, entry);
    return entry;
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
  // Private or symmetric members never belong in a client's published keys: such a set is refused.
  for (const key of keys) {
    if (!key || typeof key !== 'object' || 'd' in key || 'k' in key || key.kty === 'oct') {
      throw new TypeError('A client key set holds public asymmetric keys only.');
    }
  }
  return createLocalJWKSet(document as JSONWebKeySet);
}
