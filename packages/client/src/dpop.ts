import * as oauth from 'oauth4webapi';

/**
 * The client's DPoP key (RFC 9449): `true` for a key the client creates (in a browser a
 * non-extractable P-256 key kept in IndexedDB across reloads, one per issuer and client id; where
 * there is no IndexedDB, a non-extractable key for the life of the client), or a `CryptoKeyPair` a
 * server app provides.
 */
export type DpopOption = boolean | CryptoKeyPair;

/** Where the browser keeps DPoP keys: the CryptoKey objects themselves (structured clone), never their bytes. */
const DATABASE = 'gatehouse-dpop';
const STORE = 'keys';

/** A new non-extractable ES256 key pair (the public half is always exportable, as Web Crypto makes it). */
function generate(): Promise<CryptoKeyPair> {
  return crypto.subtle.generateKey({ name: 'ECDSA', namedCurve: 'P-256' }, false, [
    'sign',
    'verify',
  ]) as Promise<CryptoKeyPair>;
}

function request<T>(operation: IDBRequest<T>): Promise<T> {
  return new Promise((resolve, reject) => {
    operation.onsuccess = () => resolve(operation.result);
    operation.onerror = () => reject(operation.error);
  });
}

async function openDatabase(): Promise<IDBDatabase> {
  const opening = indexedDB.open(DATABASE, 1);
  opening.onupgradeneeded = () => opening.result.createObjectStore(STORE);
  return request(opening);
}

/**
 * The key pair stored under `id`, created and stored on first use. Of two tabs creating one at
 * once, the first `add` wins and both use its key.
 */
async function persistentKeyPair(id: string): Promise<CryptoKeyPair> {
  if (typeof indexedDB === 'undefined') return generate();
  const db = await openDatabase();
  try {
    const read = () =>
      request(db.transaction(STORE, 'readonly').objectStore(STORE).get(id)) as Promise<
        CryptoKeyPair | undefined
      >;
    const existing = await read();
    if (existing?.privateKey && existing.publicKey) return existing;
    const created = await generate();
    try {
      await request(db.transaction(STORE, 'readwrite').objectStore(STORE).add(created, id));
      return created;
    } catch {
      return (await read()) ?? created;
    }
  } finally {
    db.close();
  }
}

/** The lazily created DPoP handle of a client (`undefined` without DPoP). */
export type DpopSource = () => Promise<oauth.DPoPHandle | undefined>;

/**
 * The DPoP handle source of the `dpop` option, for the client `client()` gives when the handle is
 * made (its clock skew dates the proofs), under the key id `id`.
 */
export function dpopSource(
  option: DpopOption | undefined,
  client: () => oauth.Client,
  id: string,
): DpopSource {
  if (option === undefined || option === false) return async () => undefined;
  let handle: Promise<oauth.DPoPHandle> | undefined;
  return () => {
    handle ??= (async () => oauth.DPoP(client(), option === true ? await persistentKeyPair(id) : option))();
    return handle;
  };
}

/**
 * Runs a request and the processing of its response, once more when the server asked for a (new)
 * DPoP nonce (RFC 9449 §8: `use_dpop_nonce`; oauth4webapi's handle has recorded the nonce).
 */
export async function withNonceRetry<T>(attempt: () => Promise<T>): Promise<T> {
  try {
    return await attempt();
  } catch (error) {
    if (!oauth.isDPoPNonceError(error)) throw error;
    return attempt();
  }
}
