import { oauthError, type ProtocolError } from '../../errors.js';
import { refusedUrlReason } from '../../http/guarded-fetch.js';
import { unstorableJsonString } from '../../http/storable-text.js';
import {
  backchannelRegistrationProblem,
  CIBA_GRANT,
  type CibaDeliveryMode,
} from '../../records/backchannel-client.js';
import { REQUEST_OBJECT_ALGORITHMS } from '../../records/client-record.js';
import type {
  ClientRecord,
  GrantType,
  RequestObjectSigningAlgorithm,
  TokenEndpointAuthMethod,
} from '../../storage/types.js';
import { refusedRedirectUriReason } from './redirect-uri.js';

/**
 * Client metadata (RFC 7591 §2) as Gatehouse registers it, from a registration request or a client
 * ID metadata document: validated, defaults filled in, unknown fields dropped (RFC 7591 §2: a
 * server ignores metadata it does not understand).
 */
export interface ClientMetadata {
  readonly clientName?: string;
  readonly redirectUris: readonly string[];
  readonly grantTypes: readonly GrantType[];
  readonly responseTypes: readonly string[];
  /** OpenID Connect Dynamic Client Registration §2 `application_type`. Default `web`. */
  readonly applicationType: 'web' | 'native';
  readonly tokenEndpointAuthMethod: TokenEndpointAuthMethod;
  /** The `scope` the client may request, when it named one. */
  readonly scopes?: readonly string[];
  /**
   * The informational metadata kept as given (type-checked): `client_uri`, `logo_uri`, `tos_uri`,
   * `policy_uri`, `contacts`, `software_id`, `software_version`, and for `private_key_jwt` clients
   * `jwks_uri` or `jwks`.
   */
  readonly informational: Readonly<Record<string, unknown>>;
  /** RFC 9126 §6 `require_pushed_authorization_requests`. Default `false`. */
  readonly requirePushedAuthorizationRequests: boolean;
  /** RFC 9449 §5.2 `dpop_bound_access_tokens`. Default `false`. */
  readonly dpopBoundAccessTokens: boolean;
  /** Back-Channel Logout 1.0 §2.2 `backchannel_logout_uri`, when registered. */
  readonly backchannelLogoutUri?: string;
  /** Back-Channel Logout 1.0 §2.2 `backchannel_logout_session_required`. Default `false`. */
  readonly backchannelLogoutSessionRequired: boolean;
  /** RFC 9101 §10.5 `require_signed_request_object`. Default `false`. */
  readonly requireSignedRequestObject: boolean;
  /** OpenID Connect Registration §2 `request_object_signing_alg`, when given. */
  readonly requestObjectSigningAlg?: RequestObjectSigningAlgorithm;
  /** RFC 9396 §10 `authorization_details_types`, when given. */
  readonly authorizationDetailsTypes?: readonly string[];
  /** CIBA §4 `backchannel_token_delivery_mode`, for a client of the CIBA grant. */
  readonly backchannelTokenDeliveryMode?: CibaDeliveryMode;
  /** CIBA §4 `backchannel_client_notification_endpoint`, for a `ping` client. */
  readonly backchannelClientNotificationEndpoint?: string;
}

/** What a source of metadata may register. */
export interface ClientMetadataRules {
  /** The `token_endpoint_auth_method` values accepted; the first is the default. */
  readonly authMethods: readonly TokenEndpointAuthMethod[];
  /** Refuse a document carrying `client_secret` or `client_secret_expires_at` (client ID metadata documents). */
  readonly refuseSecrets: boolean;
  /** The instance's scopes, when it restricts them. */
  readonly scopes: ReadonlySet<string> | undefined;
  /**
   * Back-channel logout is on (`backchannelLogout`): `backchannel_logout_uri` is accepted, https to
   * a public host, or `http://` to a loopback host with `allowLoopback` (a development setting).
   * Absent: the back-channel metadata is ignored (RFC 7591 §2, metadata the server does not use).
   */
  readonly backchannelLogout?: { readonly allowLoopback: boolean };
  /**
   * The CIBA token delivery modes a client may register, when the instance serves CIBA (`ciba`
   * option): the client may then name the `urn:openid:params:grant-type:ciba` grant type.
   */
  readonly backchannelModes?: readonly CibaDeliveryMode[];
}

/** Grant types a registered client may name: those of the redirect-based flow. */
const GRANT_TYPES: ReadonlySet<string> = new Set(['authorization_code', 'refresh_token']);
/** With CIBA served: backchannel authentication too. */
const GRANT_TYPES_WITH_CIBA: ReadonlySet<string> = new Set([...GRANT_TYPES, CIBA_GRANT]);
const MAX_REDIRECT_URIS = 10;
/**
 * Most bytes of metadata kept for one client (its JSON: redirect URIs, names, informational URIs,
 * inline keys). Anyone may register, so what one registration stores is bounded whatever the
 * request size (issue 27: a 64 KB body once stored ~57 KB for 30 days); real registrations take
 * well under 2 KB, an inline key set of two RSA keys about 1.5 KB.
 */
export const MAX_METADATA_BYTES = 8192;
const MAX_TEXT = 200;
const MAX_URI = 2000;
const INFORMATIONAL_URIS = ['client_uri', 'logo_uri', 'tos_uri', 'policy_uri'] as const;
const INFORMATIONAL_TEXTS = ['software_id', 'software_version'] as const;

const invalidMetadata = (description: string): ProtocolError =>
  oauthError('invalid_client_metadata', description);

/**
 * Validates client metadata. Throws 400 `invalid_redirect_uri` for a missing or unacceptable
 * `redirect_uris` and 400 `invalid_client_metadata` for anything else (RFC 7591 §3.2.2).
 */
export function parseClientMetadata(input: unknown, rules: ClientMetadataRules): ClientMetadata {
  if (typeof input !== 'object' || input === null || Array.isArray(input))
    throw invalidMetadata('The client metadata must be a JSON object.');
  // Before anything is kept: PostgreSQL's jsonb refuses NUL and unpaired surrogates (a 503 there,
  // stored elsewhere), and no metadata has a use for a control character.
  const unstorable = unstorableJsonString(input);
  if (unstorable) throw invalidMetadata(`${unstorable.path} contains ${unstorable.problem}.`);
  const given = input as Record<string, unknown>;
  if (rules.refuseSecrets && ('client_secret' in given || 'client_secret_expires_at' in given))
    throw invalidMetadata('A client ID metadata document must not contain a client secret.');

  const grantTypes = stringList(given, 'grant_types', ['authorization_code']);
  const allowed = rules.backchannelModes ? GRANT_TYPES_WITH_CIBA : GRANT_TYPES;
  for (const grant of grantTypes)
    if (!allowed.has(grant))
      throw invalidMetadata(`grant_types: "${grant}" is not supported (${[...allowed].join(', ')}).`);
  const redirectBased = grantTypes.includes('authorization_code');
  const backchannelAuthentication = grantTypes.includes(CIBA_GRANT);
  if (!redirectBased && !backchannelAuthentication)
    throw invalidMetadata(
      `grant_types must include authorization_code${rules.backchannelModes ? ` or ${CIBA_GRANT}` : ''}.`,
    );

  // A client of backchannel authentication alone has no redirect (CIBA §4): its URIs are optional.
  const redirectUris = given.redirect_uris ?? (redirectBased ? undefined : []);
  if (!Array.isArray(redirectUris) || (redirectBased && redirectUris.length === 0))
    throw oauthError('invalid_redirect_uri', 'redirect_uris must be a non-empty array of URIs.');
  if (redirectUris.length > MAX_REDIRECT_URIS)
    throw oauthError('invalid_redirect_uri', `At most ${MAX_REDIRECT_URIS} redirect_uris are accepted.`);
  for (const uri of redirectUris) {
    const reason = refusedRedirectUriReason(uri);
    if (reason) throw oauthError('invalid_redirect_uri', `Invalid redirect URI: ${reason}.`);
  }

  const responseTypes = redirectBased
    ? stringList(given, 'response_types', ['code'])
    : given.response_types === undefined
      ? []
      : stringList(given, 'response_types', []);
  // RFC 7591 §2.1: authorization_code goes with the response type code, and nothing else is served.
  if (redirectBased ? responseTypes.length !== 1 || responseTypes[0] !== 'code' : responseTypes.length > 0)
    throw invalidMetadata(
      redirectBased
        ? 'response_types must be ["code"], the one response type of authorization_code.'
        : 'response_types must be empty without authorization_code.',
    );

  const applicationType = given.application_type ?? 'web';
  if (applicationType !== 'web' && applicationType !== 'native')
    throw invalidMetadata('application_type must be "web" or "native".');

  const method = given.token_endpoint_auth_method ?? rules.authMethods[0]!;
  if (typeof method !== 'string' || !rules.authMethods.includes(method as TokenEndpointAuthMethod))
    throw invalidMetadata(`token_endpoint_auth_method must be one of: ${rules.authMethods.join(', ')}.`);

  const delivery = backchannelAuthentication
    ? backchannelMetadata(given, rules.backchannelModes ?? [], method)
    : {};

  const clientName = optionalText(given, 'client_name');
  const scopes = scopeList(given.scope, rules.scopes);
  const logout = rules.backchannelLogout && backchannelLogoutMetadata(given, rules.backchannelLogout);
  const metadata: ClientMetadata = {
    ...(clientName === undefined ? {} : { clientName }),
    redirectUris: redirectUris as string[],
    grantTypes: [...new Set(grantTypes)],
    responseTypes,
    applicationType,
    tokenEndpointAuthMethod: method as TokenEndpointAuthMethod,
    ...(scopes === undefined ? {} : { scopes }),
    informational: informational(given, method === 'private_key_jwt'),
    requirePushedAuthorizationRequests: flag(given, 'require_pushed_authorization_requests'),
    dpopBoundAccessTokens: flag(given, 'dpop_bound_access_tokens'),
    ...(logout?.uri === undefined ? {} : { backchannelLogoutUri: logout.uri }),
    backchannelLogoutSessionRequired: logout?.sessionRequired ?? false,
    requireSignedRequestObject: flag(given, 'require_signed_request_object'),
    ...requestObjectAlgorithm(given),
    ...detailTypes(given),
    ...delivery,
  };
  if (new TextEncoder().encode(JSON.stringify(metadata)).byteLength > MAX_METADATA_BYTES)
    throw invalidMetadata(`The client metadata kept must not exceed ${MAX_METADATA_BYTES} bytes as JSON.`);
  return metadata;
}

/**
 * `backchannel_logout_uri` and `backchannel_logout_session_required` (OpenID Connect Back-Channel
 * Logout 1.0 §2.2): an absolute URI without a fragment, https (the logout token must not cross a
 * network in the clear), whose host is not a private, loopback or link-local address literal
 * (anyone may register, and the server POSTs there: RFC 9700 §4.13), or `http://` to a loopback
 * host with `allowLoopback`. Names resolving to such addresses are refused at delivery
 * (`http/guarded-fetch.ts`).
 */
function backchannelLogoutMetadata(
  given: Record<string, unknown>,
  policy: { readonly allowLoopback: boolean },
): { readonly uri?: string; readonly sessionRequired: boolean } {
  const sessionRequired = flag(given, 'backchannel_logout_session_required');
  const uri = optionalText(given, 'backchannel_logout_uri', MAX_URI);
  if (uri === undefined) return { sessionRequired };
  let url: URL;
  try {
    url = new URL(uri);
  } catch {
    throw invalidMetadata('backchannel_logout_uri must be an absolute URI.');
  }
  if (uri.includes('#')) throw invalidMetadata('backchannel_logout_uri must not have a fragment.');
  const refused = refusedUrlReason(url, { allowLoopback: policy.allowLoopback });
  if (refused) throw invalidMetadata(`backchannel_logout_uri cannot be used: ${refused}.`);
  return { uri, sessionRequired };
}

/** `request_object_signing_alg` (OpenID Connect Registration §2), one of the algorithms of RFC 9101 objects. */
function requestObjectAlgorithm(
  given: Record<string, unknown>,
): Pick<ClientMetadata, 'requestObjectSigningAlg'> {
  const value = given.request_object_signing_alg;
  if (value === undefined) return {};
  if (typeof value !== 'string' || !(REQUEST_OBJECT_ALGORITHMS as readonly string[]).includes(value))
    throw invalidMetadata(
      `request_object_signing_alg must be one of: ${REQUEST_OBJECT_ALGORITHMS.join(', ')}.`,
    );
  return { requestObjectSigningAlg: value as RequestObjectSigningAlgorithm };
}

/** Most `authorization_details_types` one registration may name. */
const MAX_DETAIL_TYPES = 20;

/** `authorization_details_types` (RFC 9396 §10): the RAR types the client may ask for, at most 20 names. */
function detailTypes(given: Record<string, unknown>): Pick<ClientMetadata, 'authorizationDetailsTypes'> {
  const value = given.authorization_details_types;
  if (value === undefined) return {};
  if (
    !Array.isArray(value) ||
    value.length > MAX_DETAIL_TYPES ||
    !value.every((type) => typeof type === 'string' && type.length > 0 && type.length <= MAX_TEXT)
  )
    throw invalidMetadata(
      `authorization_details_types must be an array of at most ${MAX_DETAIL_TYPES} type names.`,
    );
  return { authorizationDetailsTypes: [...new Set(value as string[])] };
}

/**
 * The CIBA metadata of a client registering the CIBA grant (CIBA Core 1.0 §4): its token delivery
 * mode (required, one the instance serves), its notification endpoint (required in ping mode), a
 * client that authenticates (§7.1: the backchannel authentication endpoint takes the token
 * endpoint's client authentication). Signed authentication requests and user codes are not served,
 * so a client registering for them is refused rather than left to fail later.
 */
function backchannelMetadata(
  given: Record<string, unknown>,
  modes: readonly CibaDeliveryMode[],
  method: unknown,
): Pick<ClientMetadata, 'backchannelTokenDeliveryMode' | 'backchannelClientNotificationEndpoint'> {
  if (method === 'none')
    throw invalidMetadata(`A client of ${CIBA_GRANT} must authenticate (token_endpoint_auth_method).`);
  const mode = given.backchannel_token_delivery_mode;
  if (!modes.includes(mode as CibaDeliveryMode))
    throw invalidMetadata(`backchannel_token_delivery_mode must be one of: ${modes.join(', ')}.`);
  const endpoint = given.backchannel_client_notification_endpoint;
  const problem = backchannelRegistrationProblem(mode, endpoint);
  if (problem)
    throw invalidMetadata(
      `${problem.field === 'mode' ? 'backchannel_token_delivery_mode' : 'backchannel_client_notification_endpoint'} ${problem.problem}.`,
    );
  if (given.backchannel_user_code_parameter === true)
    throw invalidMetadata('backchannel_user_code_parameter is not supported by this server.');
  if (given.backchannel_authentication_request_signing_alg !== undefined)
    throw invalidMetadata('Signed backchannel authentication requests are not supported by this server.');
  return {
    backchannelTokenDeliveryMode: mode as CibaDeliveryMode,
    ...(typeof endpoint === 'string' ? { backchannelClientNotificationEndpoint: endpoint } : {}),
  };
}

/** An optional boolean metadata field (default `false`). */
function flag(given: Record<string, unknown>, name: string): boolean {
  const value = given[name] ?? false;
  if (typeof value !== 'boolean') throw invalidMetadata(`${name} must be true or false.`);
  return value;
}

/** The client record of registered metadata. */
export function clientRecordOf(id: string, metadata: ClientMetadata, secretHash?: string): ClientRecord {
  const method = metadata.tokenEndpointAuthMethod;
  return {
    id,
    ...(metadata.clientName === undefined ? {} : { name: metadata.clientName }),
    type: method === 'none' ? 'public' : 'confidential',
    ...(secretHash === undefined ? {} : { secretHash }),
    tokenEndpointAuthMethod: method,
    redirectUris: metadata.redirectUris,
    grantTypes: metadata.grantTypes,
    ...(metadata.scopes === undefined ? {} : { scopes: metadata.scopes }),
    // private_key_jwt (RFC 7523 §2.2): the keys the method table verifies assertions with.
    ...keysOf(metadata),
    ...(metadata.requirePushedAuthorizationRequests ? { requirePushedAuthorizationRequests: true } : {}),
    ...(metadata.dpopBoundAccessTokens ? { dpopBoundAccessTokens: true } : {}),
    ...(metadata.backchannelLogoutUri === undefined
      ? {}
      : { backchannelLogoutUri: metadata.backchannelLogoutUri }),
    ...(metadata.backchannelLogoutSessionRequired ? { backchannelLogoutSessionRequired: true } : {}),
    ...(metadata.requireSignedRequestObject ? { requireSignedRequestObject: true } : {}),
    ...(metadata.requestObjectSigningAlg === undefined
      ? {}
      : { requestObjectSigningAlg: metadata.requestObjectSigningAlg }),
    ...(metadata.authorizationDetailsTypes === undefined
      ? {}
      : { authorizationDetailsTypes: metadata.authorizationDetailsTypes }),
    ...(metadata.backchannelTokenDeliveryMode === undefined
      ? {}
      : { backchannelTokenDeliveryMode: metadata.backchannelTokenDeliveryMode }),
    ...(metadata.backchannelClientNotificationEndpoint === undefined
      ? {}
      : { backchannelClientNotificationEndpoint: metadata.backchannelClientNotificationEndpoint }),
  };
}

/** The `jwks` / `jwksUri` of a `private_key_jwt` registration (validated by {@link parseClientMetadata}). */
function keysOf(metadata: ClientMetadata): Pick<ClientRecord, 'jwks' | 'jwksUri'> {
  if (metadata.tokenEndpointAuthMethod !== 'private_key_jwt') return {};
  const { jwks, jwks_uri: jwksUri } = metadata.informational;
  if (typeof jwksUri === 'string') return { jwksUri };
  return jwks === undefined ? {} : { jwks: jwks as NonNullable<ClientRecord['jwks']> };
}

function stringList(given: Record<string, unknown>, name: string, fallback: string[]): string[] {
  const value = given[name];
  if (value === undefined) return fallback;
  if (
    !Array.isArray(value) ||
    value.length === 0 ||
    value.length > 10 ||
    !value.every((v) => typeof v === 'string')
  )
    throw invalidMetadata(`${name} must be a non-empty array of strings.`);
  return value as string[];
}

function optionalText(given: Record<string, unknown>, name: string, max = MAX_TEXT): string | undefined {
  const value = given[name];
  if (value === undefined) return undefined;
  // Control characters would let a name forge lines of the consent page or of logs.
  if (typeof value !== 'string' || value.trim() === '' || value.length > max || hasControlCharacter(value))
    throw invalidMetadata(`${name} must be a string of 1 to ${max} printable characters.`);
  return value;
}

/** Whether `text` has a C0 control character or DEL. */
function hasControlCharacter(text: string): boolean {
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (code < 0x20 || code === 0x7f) return true;
  }
  return false;
}

function scopeList(value: unknown, known: ReadonlySet<string> | undefined): string[] | undefined {
  if (value === undefined) return undefined;
  if (typeof value !== 'string' || value.length > 1000)
    throw invalidMetadata('scope must be a space-separated string.');
  const scopes = [...new Set(value.split(' ').filter(Boolean))];
  for (const scope of scopes)
    if (known && !known.has(scope)) throw invalidMetadata(`scope: "${scope}" is not a scope of this server.`);
  return scopes;
}

function informational(given: Record<string, unknown>, keyBased: boolean): Record<string, unknown> {
  const kept: Record<string, unknown> = {};
  for (const name of INFORMATIONAL_URIS) {
    const value = optionalText(given, name, MAX_URI);
    if (value === undefined) continue;
    if (!/^https:\/\//i.test(value)) throw invalidMetadata(`${name} must be an https URI.`);
    kept[name] = value;
  }
  for (const name of INFORMATIONAL_TEXTS) {
    const value = optionalText(given, name);
    if (value !== undefined) kept[name] = value;
  }
  if (given.contacts !== undefined) {
    const contacts = given.contacts;
    if (
      !Array.isArray(contacts) ||
      contacts.length > 10 ||
      !contacts.every((c) => typeof c === 'string' && c.length <= MAX_TEXT)
    )
      throw invalidMetadata('contacts must be an array of at most 10 strings.');
    kept.contacts = contacts;
  }
  if (keyBased) {
    // private_key_jwt (RFC 7523): the client's public keys, by reference or by value.
    const jwksUri = optionalText(given, 'jwks_uri', MAX_URI);
    if (jwksUri !== undefined) {
      if (!/^https:\/\//i.test(jwksUri)) throw invalidMetadata('jwks_uri must be an https URI.');
      kept.jwks_uri = jwksUri;
    }
    const jwks = given.jwks;
    if (jwks !== undefined) {
      if (typeof jwks !== 'object' || jwks === null || !Array.isArray((jwks as { keys?: unknown }).keys))
        throw invalidMetadata('jwks must be a JWK Set.');
      kept.jwks = jwks;
    }
    if ((jwksUri === undefined) === (jwks === undefined))
      throw invalidMetadata('A private_key_jwt client names its keys with exactly one of jwks_uri and jwks.');
  }
  return kept;
}
