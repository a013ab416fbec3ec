import type { Context } from '../../context.js';
import { invalidRequest } from '../../errors.js';
import { Params } from '../../http/form.js';
import type { KeyValueWriteOptions } from '../../storage/types.js';
import { hashSecret, randomSecret } from '../../tokens/secrets.js';

/*
 * The state of RFC 9126 pushed authorization requests, in the instance's key-value store:
 *
 * - `par:{hash of the reference}`: a pushed request, until its `request_uri` is used once at the
 *   authorization endpoint (taken atomically, §4 "one-time use") or expires (`requestUriTtl`);
 * - `par-flight:{hash of the reference}`: the same request once the browser brought it to the
 *   authorization endpoint, for the rest of that browser's round trip (login page, consent page,
 *   back to the authorization endpoint). The login and consent forms carry only `client_id` and
 *   this reference, never the pushed parameters, which therefore cannot be changed on the way.
 *   It ends when the code is issued (taken atomically, so one pushed request yields one code) or
 *   after {@link FLIGHT_TTL_SECONDS}.
 *
 * References are 256-bit random values (at least 128 bits are needed, RFC 9126 §2.2 and §7.1);
 * only their SHA-256 hashes are keys, like every other secret Gatehouse stores.
 */

/** The `request_uri` prefix of RFC 9126 §2.2. */
export const REQUEST_URI_PREFIX = 'urn:ietf:params:oauth:request_uri:';
/** The reference the login and consent forms carry for a pushed request in flight (Gatehouse's own). */
export const FLIGHT_URI_PREFIX = 'urn:gatehouse:authorization_request:';
/**
 * How long a pushed request stays usable once the browser reached the authorization endpoint with
 * it: the time a user has for the login and consent pages.
 */
export const FLIGHT_TTL_SECONDS = 600;
/**
 * Largest stored pushed request (its JSON), in characters: the known authorization parameters
 * only, each already bounded by its own rule; far above any real request, and a fixed bound on
 * what one push can make the server keep.
 */
export const MAX_PUSHED_REQUEST_CHARS = 8192;
/** Longest reference accepted at the authorization endpoint (a longer one is never ours). */
const MAX_REFERENCE_CHARS = 128;

/** What keeping pushed requests and flights reads: their store, clock and randomness. */
type PushedRequestStore = Pick<Context, 'storage' | 'clock' | 'randomBytes'>;

/** A pushed request as stored: its client and its validated parameters. */
interface StoredRequest {
  readonly c: string;
  readonly p: Readonly<Record<string, string>>;
}

/** A pushed request the authorization endpoint resolved. */
export interface PushedRequest {
  /** The parameters as pushed (the validated ones), which win over anything else (§4). */
  readonly params: Params;
  /** The same, as stored. */
  readonly parameters: Readonly<Record<string, string>>;
  /** What the forms carry instead: `client_id` and the in-flight reference. */
  readonly formParameters: Readonly<Record<string, string>>;
  /** The key of the in-flight entry (its stored value is {@link stored}). */
  readonly key: string;
  readonly stored: string;
}

/** Stores a validated pushed request of `clientId` for `requestUriTtl` seconds; returns its `request_uri`. */
export async function savePushedRequest(
  ctx: PushedRequestStore,
  requestUriTtl: number,
  clientId: string,
  parameters: Readonly<Record<string, string>>,
  write: KeyValueWriteOptions,
): Promise<string> {
  const value = JSON.stringify({ c: clientId, p: parameters } satisfies StoredRequest);
  if (value.length > MAX_PUSHED_REQUEST_CHARS)
    throw invalidRequest(
      `The pushed authorization request is larger than ${MAX_PUSHED_REQUEST_CHARS} characters.`,
    );
  const reference = randomSecret(ctx.randomBytes);
  const now = ctx.clock.now();
  const expiresAt = now + requestUriTtl * 1000;
  await ctx.storage.kv.add(`par:${await hashSecret(reference)}`, value, expiresAt, now, write);
  return REQUEST_URI_PREFIX + reference;
}

/**
 * Whether the request names a `request_uri` of this server (it is then resolved, and nothing else
 * of it read). Any other `request_uri` (an OpenID Connect request object by reference) is left to
 * the validation, which answers `request_uri_not_supported` (Core §6.2).
 */
export function namesRequestUri(params: Params): boolean {
  const value = params.get('request_uri');
  return value !== undefined && (value.startsWith(REQUEST_URI_PREFIX) || value.startsWith(FLIGHT_URI_PREFIX));
}

/**
 * Resolves the `request_uri` of an authorization request (RFC 9126 §4): a pushed one is used once
 * (taken) and becomes in flight; an in-flight one (the login or consent form, the authorize URL
 * after login) is read. Only `client_id` and `request_uri` are read; `client_id` must be the
 * pushing client's. Throws `invalid_request` (shown as a page, never redirected: the redirect URI
 * of an unknown request is unknown) for anything else: unknown, expired or used references.
 */
export async function resolvePushedRequest(ctx: PushedRequestStore, params: Params): Promise<PushedRequest> {
  const requestUri = params.require('request_uri');
  const clientId = params.require('client_id');
  const now = ctx.clock.now();
  const refused = () =>
    invalidRequest(
      'The request_uri is unknown, expired or already used: push the authorization request again.',
    );
  let key: string;
  let stored: string | null;
  if (requestUri.startsWith(REQUEST_URI_PREFIX)) {
    const reference = requestUri.slice(REQUEST_URI_PREFIX.length);
    if (reference.length > MAX_REFERENCE_CHARS) throw refused();
    const pushedKey = `par:${await hashSecret(reference)}`;
    // Another client's request_uri is refused without being used up (its client can still use it).
    const peeked = await ctx.storage.kv.get(pushedKey, now);
    if (peeked === null || clientOf(peeked) !== clientId) throw refused();
    stored = await ctx.storage.kv.take(pushedKey, now);
    if (stored === null) throw refused();
    const flight = randomSecret(ctx.randomBytes);
    key = `par-flight:${await hashSecret(flight)}`;
    await ctx.storage.kv.add(key, stored, now + FLIGHT_TTL_SECONDS * 1000, now);
    return pushed(stored, key, FLIGHT_URI_PREFIX + flight);
  }
  if (requestUri.startsWith(FLIGHT_URI_PREFIX)) {
    const reference = requestUri.slice(FLIGHT_URI_PREFIX.length);
    if (reference.length > MAX_REFERENCE_CHARS) throw refused();
    key = `par-flight:${await hashSecret(reference)}`;
    stored = await ctx.storage.kv.get(key, now);
    if (stored === null || clientOf(stored) !== clientId) throw refused();
    return pushed(stored, key, requestUri);
  }
  throw refused();
}

function clientOf(stored: string): string {
  return (JSON.parse(stored) as StoredRequest).c;
}

function pushed(stored: string, key: string, flightUri: string): PushedRequest {
  const { c, p } = JSON.parse(stored) as StoredRequest;
  return {
    params: new Params(new URLSearchParams(p)),
    parameters: p,
    formParameters: { client_id: c, request_uri: flightUri },
    key,
    stored,
  };
}

/**
 * Replaces the parameters of a request in flight (after the login, without what asked for it:
 * `parametersAfterLogin`), keeping its lifetime bound. `false` when it ended meanwhile.
 */
export async function updateFlight(
  ctx: PushedRequestStore,
  request: PushedRequest,
  parameters: Readonly<Record<string, string>>,
): Promise<boolean> {
  const { c } = JSON.parse(request.stored) as StoredRequest;
  const now = ctx.clock.now();
  return ctx.storage.kv.swap(
    request.key,
    request.stored,
    JSON.stringify({ c, p: parameters } satisfies StoredRequest),
    now + FLIGHT_TTL_SECONDS * 1000,
    now,
  );
}

/** Ends a request in flight as its code is issued: `false` when another step ended it first. */
export async function endFlight(ctx: PushedRequestStore, request: PushedRequest): Promise<boolean> {
  return (await ctx.storage.kv.take(request.key, ctx.clock.now())) !== null;
}
