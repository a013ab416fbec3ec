import { invalidRequest, ProtocolError } from '../../errors.js';
import { BoundedFetchCache, type FetchCaller, type Loaded } from '../../http/bounded-fetch-cache.js';
import { guardedFetch, OutboundFetchError, refusedUrlReason } from '../../http/guarded-fetch.js';
import type { ClientRecord } from '../../storage/types.js';
import { addSeconds, type EpochMs, secondsToMs } from '../../time.js';
import { cacheLifetime } from './cache-lifetime.js';
import { looksLikeClientIdUrl, refusedClientIdUrlReason } from './client-id-url.js';
import { clientRecordOf, parseClientMetadata } from './client-metadata.js';
import type { MetadataDocumentSettings } from './settings.js';

/** How long a document that could not be fetched or used is answered from memory. */
const FAILURE_MS = 30_000;
/** Fetches one client address may have in flight at once (beyond: 429). */
const MAX_CONCURRENT_PER_ADDRESS = 4;

/**
 * Client ID metadata documents (draft-ietf-oauth-client-id-metadata-document): the client of a
 * `client_id` that is a URL, from the document that URL serves. The directory asks it for ids that
 * neither the host nor the registry knows.
 *
 * A document is kept in a process-local {@link BoundedFetchCache}, never in the instance's
 * `ClientRegistry` (that one holds RFC 7591 registrations, which cannot be fetched again): any
 * unauthenticated request can name a URL, so nothing it names reaches a storage engine. The cache
 * is bounded in bytes (least recently used documents go first); a document is kept at most its
 * cache lifetime ({@link cacheLifetime}, §5.2) and only `minCacheSeconds` after its last use. Each
 * fetch is charged to the caller's address (`maxFetchesPerAddress` per `fetchWindowSeconds`,
 * beyond: 429), and the fetches in flight are capped globally, per origin and per address (503
 * or 429 with `Retry-After`); a refused document is remembered for 30 s.
 */
export class ClientMetadataDocuments {
  readonly #cache: BoundedFetchCache<ClientRecord>;

  constructor(
    private readonly settings: MetadataDocumentSettings,
    private readonly scopes: ReadonlySet<string> | undefined,
    private readonly now: () => EpochMs,
  ) {
    this.#cache = new BoundedFetchCache(
      {
        maxBytes: settings.maxCacheBytes,
        maxConcurrent: settings.maxConcurrentFetches,
        maxConcurrentPerOrigin: settings.maxConcurrentFetchesPerOrigin,
        maxConcurrentPerAddress: MAX_CONCURRENT_PER_ADDRESS,
        failureMs: FAILURE_MS,
      },
      'client metadata documents',
    );
  }

  /**
   * The client whose id is this document URL; `null` when `clientId` is no URL. Throws 400
   * `invalid_request` saying why a URL or its document was refused. `caller` is charged for a
   * fetch; without one (an authenticated listing of a user's grants) nothing is charged.
   */
  async resolve(clientId: string, caller?: FetchCaller): Promise<ClientRecord | null> {
    if (!looksLikeClientIdUrl(clientId)) return null;
    const { settings } = this;
    const refused =
      refusedClientIdUrlReason(clientId, settings.allowLoopback) ??
      refusedUrlReason(new URL(clientId), { allowLoopback: settings.allowLoopback });
    if (refused) throw refusal(refused);
    const now = this.now();
    return this.#cache.get(clientId, now, () => this.#fetch(clientId, now), caller ? { caller } : {});
  }

  async #fetch(clientId: string, now: EpochMs): Promise<Loaded<ClientRecord>> {
    const { settings } = this;
    let fetched: Awaited<ReturnType<typeof guardedFetch>>;
    let document: unknown;
    try {
      fetched = await guardedFetch(new URL(clientId), {
        policy: { allowLoopback: settings.allowLoopback },
        transport: settings.fetch,
        maxBytes: settings.maxBytes,
        timeoutMs: settings.timeoutMs,
        accept: 'application/json',
      });
      document = JSON.parse(fetched.body);
    } catch (error) {
      if (error instanceof OutboundFetchError || error instanceof SyntaxError) throw unusable(settings);
      throw error;
    }
    // §4: the document names itself; a copy served elsewhere cannot claim another client's identity.
    // Until it does, nothing about the answer is described: the URL may name an internal host.
    if ((document as { client_id?: unknown } | null)?.client_id !== clientId) throw unusable(settings);
    let client: ClientRecord;
    try {
      client = clientRecordOf(
        clientId,
        parseClientMetadata(document, {
          // §4: no shared secret can be established through a public document.
          authMethods: ['none', 'private_key_jwt'],
          refuseSecrets: true,
          scopes: this.scopes,
        }),
      );
    } catch (error) {
      if (error instanceof ProtocolError)
        throw refusal(`its metadata document is invalid: ${error.description}`);
      throw error;
    }
    const keep = cacheLifetime(fetched.headers, now, settings.minCacheSeconds, settings.maxCacheSeconds);
    return {
      value: client,
      // The parsed record is about the size of its JSON text, held as (up to two-byte) strings.
      bytes: 2 * JSON.stringify(client).length + 1024,
      expiresAt: addSeconds(now, keep),
      idleMs: secondsToMs(settings.minCacheSeconds),
    };
  }
}

function refusal(reason: string): ProtocolError {
  return invalidRequest(`The client_id is a metadata document URL that cannot be used: ${reason}.`);
}

/**
 * A document that could not be fetched, is no JSON, or does not name itself: one text for all, so
 * that a `client_id` naming an internal host tells nothing of what (or whether) it answered.
 */
function unusable(settings: MetadataDocumentSettings): ProtocolError {
  return refusal(
    `no client metadata document naming it could be fetched from it (one is served with status 200, without redirects, as JSON of at most ${settings.maxBytes} bytes, within ${settings.timeoutMs} ms)`,
  );
}
