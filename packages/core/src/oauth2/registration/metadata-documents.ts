import { invalidRequest, oauthError, ProtocolError } from '../../errors.js';
import { guardedFetch, OutboundFetchError } from '../../http/guarded-fetch.js';
import type { ClientRecord, ClientRegistry } from '../../storage/types.js';
import { addSeconds, type EpochMs } from '../../time.js';
import { cacheLifetime } from './cache-lifetime.js';
import { looksLikeClientIdUrl, refusedClientIdUrlReason } from './client-id-url.js';
import { clientRecordOf, parseClientMetadata } from './client-metadata.js';
import { registrationExtension } from './registration-record.js';
import type { MetadataDocumentSettings } from './settings.js';

/**
 * Client ID metadata documents (draft-ietf-oauth-client-id-metadata-document): the client of a
 * `client_id` that is a URL, from the document that URL serves. The directory asks it for ids that
 * neither the host nor the registry knows; a document that passes every check is kept in the
 * registry for its cache lifetime ({@link cacheLifetime}), so authorize and token requests within
 * it fetch nothing, and every process sharing the engine shares it.
 *
 * Bounded, since any unauthenticated authorization request can name a URL: one fetch in flight per
 * URL (concurrent lookups share it), at most `maxConcurrentFetches` at once (beyond: 503 with
 * `Retry-After`), each under the guarded fetch's size cap and deadline. A refused document is
 * not kept: the next request fetches again, within the same bounds.
 */
export class ClientMetadataDocuments {
  readonly #inFlight = new Map<string, Promise<ClientRecord>>();

  constructor(
    private readonly settings: MetadataDocumentSettings,
    private readonly registry: ClientRegistry,
    private readonly scopes: ReadonlySet<string> | undefined,
    private readonly now: () => EpochMs,
  ) {}

  /**
   * The client whose id is this document URL; `null` when `clientId` is no URL. Throws 400
   * `invalid_request` saying why a URL or its document was refused.
   */
  async resolve(clientId: string): Promise<ClientRecord | null> {
    if (!looksLikeClientIdUrl(clientId)) return null;
    const refused = refusedClientIdUrlReason(clientId, this.settings.allowLoopback);
    if (refused) throw refusal(refused);
    const pending = this.#inFlight.get(clientId);
    if (pending) return pending;
    if (this.#inFlight.size >= this.settings.maxConcurrentFetches) {
      throw oauthError(
        'temporarily_unavailable',
        'Too many client metadata documents are being fetched; try again shortly.',
        {
          retryAfter: 1,
        },
      );
    }
    const fetching = this.#fetchAndKeep(clientId).finally(() => this.#inFlight.delete(clientId));
    this.#inFlight.set(clientId, fetching);
    return fetching;
  }

  async #fetchAndKeep(clientId: string): Promise<ClientRecord> {
    const { settings } = this;
    let fetched: Awaited<ReturnType<typeof guardedFetch>>;
    try {
      fetched = await guardedFetch(new URL(clientId), {
        policy: { allowLoopback: settings.allowLoopback },
        transport: settings.fetch,
        maxBytes: settings.maxBytes,
        timeoutMs: settings.timeoutMs,
        accept: 'application/json',
      });
    } catch (error) {
      if (error instanceof OutboundFetchError) throw refusal(`its metadata document ${error.message}`);
      throw error;
    }
    let document: unknown;
    try {
      document = JSON.parse(fetched.body);
    } catch {
      throw refusal('its metadata document is not JSON');
    }
    // §4: the document names itself; a copy served elsewhere cannot claim another client's identity.
    if ((document as { client_id?: unknown } | null)?.client_id !== clientId)
      throw refusal("its metadata document's client_id is not exactly its URL");
    let client: ClientRecord;
    let ext: ReturnType<typeof registrationExtension>;
    try {
      const metadata = parseClientMetadata(document, {
        // §4: no shared secret can be established through a public document.
        authMethods: ['none', 'private_key_jwt'],
        refuseSecrets: true,
        scopes: this.scopes,
      });
      client = clientRecordOf(clientId, metadata);
      ext = registrationExtension('client_id_metadata_document', metadata);
    } catch (error) {
      if (error instanceof ProtocolError)
        throw refusal(`its metadata document is invalid: ${error.description}`);
      throw error;
    }
    const now = this.now();
    const keep = cacheLifetime(fetched.headers, now, settings.minCacheSeconds, settings.maxCacheSeconds);
    await this.registry.saveClient({ client, registeredAt: now, expiresAt: addSeconds(now, keep), ext });
    return client;
  }
}

function refusal(reason: string): ProtocolError {
  return invalidRequest(`The client_id is a metadata document URL that cannot be used: ${reason}.`);
}
