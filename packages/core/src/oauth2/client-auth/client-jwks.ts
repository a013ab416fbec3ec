import { createLocalJWKSet, type JSONWebKeySet, type JWTVerifyGetKey } from 'jose';
import { fetchJson, type OutboundFetchPolicy } from '../../http/outbound-fetch.js';
import type { ClientRecord } from '../../storage/types.js';

/** What the instance keeps of the `clientJwks` option. */
export interface ClientJwksPolicy extends OutboundFetchPolicy {
  /** How long a fetched key set is used before it is fetched again, in milliseconds. */
  readonly cacheMs: number;
}

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
 * The key sets of clients registered with `jwksUri` (RFC 7591 §2 `jwks_uri`), fetched under the
 * instance's outbound policy and cached: at most {@link MAX_CACHED} documents, one fetch per URI
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
    let keys: JWTVerifyGetKey | undefined;
    try {
      keys = localKeySet(await fetchJson(uri, this.#policy));
    } catch {
      // Unreachable, refused by the policy, or not a key set: the assertion fails (401), and the
      // failure is remembered for FAILURE_MS.
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

/** The key set of a client registered with inline `jwks`, or `undefined` when it is not one. */
export function inlineKeySet(client: ClientRecord): JWTVerifyGetKey | undefined {
  const jwks = client.jwks;
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
