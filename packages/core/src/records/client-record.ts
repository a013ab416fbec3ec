import { ProtocolError } from '../errors.js';
import { isLoopbackHost } from '../http/ip-address.js';
import { recordedText } from '../recorded-text.js';
import { SIGNING_ALGORITHMS } from '../tokens/keys.js';
import { backchannelRegistrationProblem } from './backchannel-client.js';
import { fieldSpellings, isAbsoluteUri, isPlainObject, misspeltFields, shownValue } from './record-shape.js';

/**
 * The client authentication methods this server offers (`oauth2/client-auth/methods.ts` implements
 * exactly these, in this order): what a client record's `tokenEndpointAuthMethod` may name.
 */
export const OFFERED_AUTH_METHODS = [
  'client_secret_basic',
  'client_secret_post',
  'private_key_jwt',
  'none',
] as const;

/** One of {@link OFFERED_AUTH_METHODS}. */
export type OfferedAuthMethod = (typeof OFFERED_AUTH_METHODS)[number];
/**
 * The check of a {@link ClientRecord} a host's `ClientStore.findClient` returns, where it enters
 * Gatehouse (the client directory), so that a record that cannot work (a typo, a snake_case
 * database row, a plain secret where its hash belongs) is refused for that client, with a log line
 * naming the client and the field, instead of failing later as a 500 (`Cannot read properties of
 * undefined`) or as a bare `invalid_client` nobody can explain.
 *
 * Only what breaks the record is a problem: extra fields (other columns of a row) are ignored,
 * except a misspelling of a field the record lacks (`redirect_uris` for `redirectUris`), which
 * would otherwise be ignored silently.
 */

/**
 * The fields of a `ClientRecord` that change what a client may do, and the spellings a host's data
 * may use for them instead (a display `name` under another spelling refuses nothing).
 */
const CLIENT_FIELDS = fieldSpellings({
  id: ['client_id', 'clientId'],
  type: ['client_type', 'clientType'],
  secretHash: ['secret_hash', 'client_secret_hash', 'clientSecretHash'],
  tokenEndpointAuthMethod: ['token_endpoint_auth_method', 'authMethod'],
  jwks: [],
  jwksUri: ['jwks_uri', 'jwksUrl', 'jwksURI'],
  redirectUris: [
    'redirectUri',
    'redirect_uris',
    'redirect_uri',
    'redirectURIs',
    'redirectUrls',
    'redirect_urls',
  ],
  grantTypes: ['grant_types', 'grantType', 'grant_type'],
  scopes: ['scope'],
  resources: ['resource'],
  introspects: ['introspect', 'introspection_resources', 'introspectionResources'],
  maxAssertionsPerWindow: ['max_assertions_per_window', 'replayQuota', 'replay_quota'],
  allowedOrigins: ['allowed_origins', 'allowedOrigin'],
  firstParty: ['first_party'],
  idTokenSignedResponseAlg: ['id_token_signed_response_alg'],
  postLogoutRedirectUris: ['post_logout_redirect_uris', 'postLogoutRedirectUri', 'post_logout_redirect_uri'],
  backchannelLogoutUri: ['backchannel_logout_uri', 'backchannelLogoutUrl', 'backChannelLogoutUri'],
  backchannelLogoutSessionRequired: [
    'backchannel_logout_session_required',
    'backChannelLogoutSessionRequired',
  ],
  backchannelTokenDeliveryMode: ['backchannel_token_delivery_mode', 'deliveryMode'],
  backchannelClientNotificationEndpoint: [
    'backchannel_client_notification_endpoint',
    'clientNotificationEndpoint',
    'notificationEndpoint',
  ],
  authorizationDetailsTypes: ['authorization_details_types', 'authorizationDetailTypes'],
  requireSignedRequestObject: ['require_signed_request_object'],
  requestObjectSigningAlg: ['request_object_signing_alg'],
});

/** What a client record's `requestObjectSigningAlg` may name (RFC 9101 with OpenID Connect Registration §2). */
export const REQUEST_OBJECT_ALGORITHMS = [
  'ES256',
  'ES384',
  'ES512',
  'EdDSA',
  'PS256',
  'PS384',
  'PS512',
  'RS256',
  'RS384',
  'RS512',
  'none',
] as const;

/**
 * Grant types by their RFC 6749 names (`implicit` and `password` are not served, but name real
 * grants: a client listing them just cannot use them); extension grants are absolute URIs (§4.5).
 */
const GRANT_TYPES = new Set([
  'authorization_code',
  'refresh_token',
  'client_credentials',
  'implicit',
  'password',
]);
/** Near misses of {@link GRANT_TYPES}. */
const GRANT_TYPE_SPELLINGS: Readonly<Record<string, string>> = {
  code: 'authorization_code',
  authorizationcode: 'authorization_code',
  refreshtoken: 'refresh_token',
  refresh: 'refresh_token',
  clientcredentials: 'client_credentials',
};

/** Highest `maxAssertionsPerWindow`: each id is kept (about 150 bytes in Redis) until it expires. */
const MAX_ASSERTIONS_PER_WINDOW = 1_000_000;

/** The output of `hashClientSecret` (SHA-256, base64url without padding). */
const SECRET_HASH = /^[A-Za-z0-9_-]{43}$/;

/**
 * Record objects whose fields passed (the id is compared on every lookup): a store that returns the
 * same object each time (`memoryClientStore`, a cache) pays for the check once. A store that changes
 * a record should return a new object, as immutable records do.
 */
const sound = new WeakSet<object>();

/**
 * What is wrong with `record` as the client `clientId`, one `field: problem` line each; empty when
 * it can be used.
 */
export function clientRecordProblems(record: unknown, clientId: string): string[] {
  if (!isPlainObject(record)) return [`findClient returned ${shownValue(record)}, not a ClientRecord object`];
  if (sound.has(record)) return record.id === clientId ? [] : [idProblem(record.id, clientId)];
  const problems = fieldProblems(record);
  if (problems.length === 0) sound.add(record);
  if (typeof record.id === 'string' && record.id !== '' && record.id !== clientId)
    problems.unshift(idProblem(record.id, clientId));
  return problems;
}

/** A case-insensitive or trimming lookup: client ids are compared exactly (RFC 6749 §2.2). */
const idProblem = (id: unknown, clientId: string) =>
  `id: the store returned the record of ${JSON.stringify(id)} for ${JSON.stringify(recordedText(clientId))}`;

/** The problems of the record's fields, whatever id it was asked for. */
function fieldProblems(record: Record<string, unknown>): string[] {
  const problems = misspeltFields(record, CLIENT_FIELDS);
  const fail = (field: string, problem: string) => {
    if (!problems.some((line) => line.startsWith(`${field}:`))) problems.push(`${field}: ${problem}`);
  };
  const given = (field: string) => record[field] !== undefined;

  if (typeof record.id !== 'string' || record.id === '')
    fail('id', `expected the client id as a non-empty string, got ${shownValue(record.id)}`);
  if (record.type !== 'confidential' && record.type !== 'public')
    fail('type', `expected "confidential" or "public", got ${shownValue(record.type)}`);
  if (given('name') && typeof record.name !== 'string')
    fail('name', `expected a string, got ${shownValue(record.name)}`);

  checkUriList(record, 'redirectUris', fail, { required: true });
  checkUriList(record, 'postLogoutRedirectUris', fail, { required: false });
  checkUriList(record, 'resources', fail, { required: false });
  checkUriList(record, 'introspects', fail, { required: false });
  checkStringList(
    record,
    'scopes',
    fail,
    (scope) => !/\s/.test(scope) || 'contains a space: give one scope per entry',
  );
  checkStringList(record, 'allowedOrigins', fail, (origin) => {
    let parsed: URL | undefined;
    try {
      parsed = new URL(origin);
    } catch {}
    return (
      parsed?.origin === origin || `"${origin}" is not an origin (scheme://host[:port], no path or slash)`
    );
  });
  checkStringList(record, 'grantTypes', fail, (grant) => {
    if (GRANT_TYPES.has(grant) || (grant.includes(':') && isAbsoluteUri(grant))) return true;
    const near = GRANT_TYPE_SPELLINGS[grant.toLowerCase().replace(/[^a-z]/g, '')];
    return `"${grant}" is not a grant type${near ? `; did you mean "${near}"?` : ' (RFC 6749 names or an absolute URI)'}`;
  });
  if (
    given('maxAssertionsPerWindow') &&
    !(
      Number.isInteger(record.maxAssertionsPerWindow) &&
      (record.maxAssertionsPerWindow as number) >= 1 &&
      (record.maxAssertionsPerWindow as number) <= MAX_ASSERTIONS_PER_WINDOW
    )
  )
    fail(
      'maxAssertionsPerWindow',
      `expected a whole number from 1 to 1,000,000, got ${shownValue(record.maxAssertionsPerWindow)}`,
    );
  if (given('firstParty') && typeof record.firstParty !== 'boolean')
    fail('firstParty', `expected a boolean, got ${shownValue(record.firstParty)}`);
  if (given('backchannelLogoutUri')) {
    const problem = backchannelLogoutUriProblem(record.backchannelLogoutUri);
    if (problem) fail('backchannelLogoutUri', problem);
  }
  if (
    given('backchannelLogoutSessionRequired') &&
    typeof record.backchannelLogoutSessionRequired !== 'boolean'
  )
    fail(
      'backchannelLogoutSessionRequired',
      `expected a boolean, got ${shownValue(record.backchannelLogoutSessionRequired)}`,
    );
  if (
    given('idTokenSignedResponseAlg') &&
    !SIGNING_ALGORITHMS.includes(record.idTokenSignedResponseAlg as never)
  )
    fail(
      'idTokenSignedResponseAlg',
      `expected one of ${SIGNING_ALGORITHMS.join(', ')}, got ${shownValue(record.idTokenSignedResponseAlg)}`,
    );
  const backchannel = backchannelRegistrationProblem(
    record.backchannelTokenDeliveryMode,
    record.backchannelClientNotificationEndpoint,
  );
  if (backchannel)
    fail(
      backchannel.field === 'mode' ? 'backchannelTokenDeliveryMode' : 'backchannelClientNotificationEndpoint',
      `${backchannel.problem}, got ${shownValue(backchannel.field === 'mode' ? record.backchannelTokenDeliveryMode : record.backchannelClientNotificationEndpoint)}`,
    );
  checkStringList(record, 'authorizationDetailsTypes', fail, (type) => type !== '' || 'is empty');
  if (given('requireSignedRequestObject') && typeof record.requireSignedRequestObject !== 'boolean')
    fail(
      'requireSignedRequestObject',
      `expected a boolean, got ${shownValue(record.requireSignedRequestObject)}`,
    );
  if (
    given('requestObjectSigningAlg') &&
    !REQUEST_OBJECT_ALGORITHMS.includes(record.requestObjectSigningAlg as never)
  )
    fail(
      'requestObjectSigningAlg',
      `expected one of ${REQUEST_OBJECT_ALGORITHMS.join(', ')}, got ${shownValue(record.requestObjectSigningAlg)}`,
    );
  checkCredentials(record, fail);
  return problems;
}

type Fail = (field: string, problem: string) => void;

function checkStringList(
  record: Record<string, unknown>,
  field: string,
  fail: Fail,
  each: (value: string) => true | string,
): void {
  const value = record[field];
  if (value === undefined) return;
  if (!Array.isArray(value)) {
    const hint = typeof value === 'string' ? ` (for one value, write [${JSON.stringify(value)}])` : '';
    fail(field, `expected an array of strings, got ${shownValue(value)}${hint}`);
    return;
  }
  for (const [index, entry] of value.entries()) {
    if (typeof entry !== 'string') {
      fail(`${field}[${index}]`, `expected a string, got ${shownValue(entry)}`);
      return;
    }
    const verdict = each(entry);
    if (verdict !== true) {
      fail(`${field}[${index}]`, verdict);
      return;
    }
  }
}

function checkUriList(
  record: Record<string, unknown>,
  field: string,
  fail: Fail,
  { required }: { required: boolean },
): void {
  if (record[field] === undefined) {
    if (required) fail(field, `missing (an array of absolute URIs; [] for a client without any)`);
    return;
  }
  checkStringList(record, field, fail, (uri) => {
    if (!isAbsoluteUri(uri)) return `"${uri}" is not an absolute URI`;
    // RFC 6749 §3.1.2: the endpoint URI must not include a fragment component.
    if (field !== 'resources' && uri.includes('#')) return `"${uri}" has a fragment (RFC 6749 section 3.1.2)`;
    return true;
  });
}

/**
 * What is wrong with a host client's back-channel logout URI (OpenID Connect Back-Channel Logout
 * 1.0 §2.2: an absolute URI without a fragment): it must be https, or http to a loopback host, as
 * every URL Gatehouse sends credentials or tokens to (`http/guarded-fetch.ts`).
 */
function backchannelLogoutUriProblem(uri: unknown): string | undefined {
  if (typeof uri !== 'string') return `expected an absolute https URI, got ${shownValue(uri)}`;
  let url: URL;
  try {
    url = new URL(uri);
  } catch {
    return `"${uri}" is not an absolute URI`;
  }
  if (uri.includes('#')) return `"${uri}" has a fragment (Back-Channel Logout 1.0 section 2.2)`;
  if (url.protocol === 'https:') return undefined;
  if (url.protocol === 'http:' && isLoopbackHost(url.hostname)) return undefined;
  return `"${uri}" is not https (http only to a loopback host: localhost, 127.0.0.1, [::1])`;
}

/** The authentication method against the credentials it needs (RFC 7591 §2). */
function checkCredentials(record: Record<string, unknown>, fail: Fail): void {
  const method =
    record.tokenEndpointAuthMethod ?? (record.type === 'public' ? 'none' : 'client_secret_basic');
  const defaulted = record.tokenEndpointAuthMethod === undefined ? ' (the default for its type)' : '';
  if (typeof method !== 'string' || !(OFFERED_AUTH_METHODS as readonly string[]).includes(method)) {
    fail(
      'tokenEndpointAuthMethod',
      `${shownValue(method)} is not a method this server offers (${OFFERED_AUTH_METHODS.join(', ')})`,
    );
    return;
  }
  if (record.type === 'public' && method !== 'none')
    fail(
      'tokenEndpointAuthMethod',
      `a public client cannot authenticate with "${method}": it has no credentials, use "none"`,
    );
  if (record.type === 'confidential' && method === 'none')
    fail(
      'tokenEndpointAuthMethod',
      '"none" is for public clients; a confidential client proves its identity',
    );
  const hasKeys = record.jwks !== undefined || record.jwksUri !== undefined;
  if (
    (method === 'client_secret_basic' || method === 'client_secret_post') &&
    record.type === 'confidential'
  ) {
    if (record.secretHash === undefined) {
      const keysHint = hasKeys
        ? '; it has client keys: did you mean tokenEndpointAuthMethod: "private_key_jwt"?'
        : '';
      const plain = ['secret', 'clientSecret', 'client_secret'].find(
        (name) => typeof record[name] === 'string',
      );
      const plainHint = plain
        ? `; it has "${plain}": store hashClientSecret(${plain}) in secretHash instead`
        : '';
      fail(
        'secretHash',
        `missing: a confidential client using ${method}${defaulted} needs hashClientSecret(secret)${keysHint}${plainHint}`,
      );
    } else checkSecretHash(record.secretHash, fail);
  }
  if (method === 'private_key_jwt') {
    if (record.jwks !== undefined && record.jwksUri !== undefined)
      fail('jwks', 'give either jwks or jwksUri, not both (RFC 7591 section 2)');
    else if (!hasKeys)
      fail('jwks', `missing: a private_key_jwt client needs its public keys in jwks or jwksUri`);
  }
  if (record.jwks !== undefined) checkJwks(record.jwks, fail);
  if (record.jwksUri !== undefined) {
    const uri = record.jwksUri;
    // Whether it may be fetched (https, public host) is the `clientJwks` policy's to say, per fetch.
    if (typeof uri !== 'string' || !/^https?:/.test(uri) || !isAbsoluteUri(uri))
      fail('jwksUri', `expected an absolute https URL, got ${shownValue(uri)}`);
  }
}

function checkSecretHash(hash: unknown, fail: Fail): void {
  if (typeof hash !== 'string') {
    fail('secretHash', `expected a string, got ${shownValue(hash)}`);
    return;
  }
  if (SECRET_HASH.test(hash)) return;
  let kind = 'the plain secret rather than hashClientSecret(secret) (43 base64url characters)';
  if (/^\$2[abxy]?\$/.test(hash) || /^\$argon2/.test(hash) || /^(scrypt|pbkdf2)/.test(hash))
    kind =
      'a password hash; client secrets are stored as hashClientSecret(secret), a SHA-256 (43 base64url characters)';
  else if (/^[0-9a-f]{64}$/i.test(hash))
    kind = 'a hex SHA-256; store hashClientSecret(secret), the base64url form';
  else if (/^[A-Za-z0-9+/]{43}=$/.test(hash))
    kind = 'a base64 SHA-256; store hashClientSecret(secret), the base64url form';
  fail('secretHash', `looks like ${kind}`);
}

function checkJwks(jwks: unknown, fail: Fail): void {
  const keys = isPlainObject(jwks) ? jwks.keys : undefined;
  if (!Array.isArray(keys)) {
    fail('jwks', 'expected a JWK Set ({ keys: [...] }, RFC 7517 section 5)');
    return;
  }
  for (const [index, key] of keys.entries()) {
    if (!isPlainObject(key) || typeof key.kty !== 'string') {
      fail(`jwks.keys[${index}]`, 'expected a JWK with a kty');
      return;
    }
    if ('d' in key || 'k' in key || key.kty === 'oct') {
      fail(`jwks.keys[${index}]`, 'holds a private or symmetric key; a client publishes public keys only');
      return;
    }
  }
}

/**
 * Answers a request for a client whose record the check refused: 400 `invalid_request`, shown as
 * a page at the authorization endpoint (never redirected: the redirect URI is not to be trusted)
 * and turned into the usual 401 `invalid_client` where the client authenticates.
 */
export class ClientRecordError extends ProtocolError {
  /** The client whose record was refused. */
  readonly clientId: string;
  constructor(clientId: string) {
    super(
      'invalid_request',
      "The client's registration on this server is invalid; the server log names the problem.",
    );
    this.clientId = clientId;
  }
}
