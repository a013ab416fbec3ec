import { invalidRequest, oauthError } from '../errors.js';
import { SUPPORTED_PROMPTS } from './discovery.js';

/**
 * The OpenID Connect parameters of an authorization request Gatehouse reads (Core §3.1.2.1), carried
 * through the login and consent forms with the OAuth 2.0 ones. `request` and `request_uri` are read
 * only to be refused (Core §6).
 */
export const OIDC_AUTHORIZATION_PARAMETERS = [
  'nonce',
  'prompt',
  'max_age',
  'login_hint',
  'id_token_hint',
  'ui_locales',
  'acr_values',
  'response_mode',
  'request',
  'request_uri',
] as const;

/** A `prompt` value Gatehouse supports. */
export type Prompt = (typeof SUPPORTED_PROMPTS)[number];

/** The OpenID Connect parameters of a request, parsed and checked. */
export interface OidcAuthorizationParameters {
  /** Echoed exactly in the ID token (Core §3.1.2.1); stored with the code. */
  readonly nonce?: string;
  /** The `prompt` values; empty when none was sent. */
  readonly prompt: ReadonlySet<Prompt>;
  /** Seconds: the user must have authenticated at most this long ago (Core §3.1.2.1). */
  readonly maxAge?: number;
  /** Prefills the username of the login page. */
  readonly loginHint?: string;
  /** A previously issued ID token, naming the user the client expects (checked by the caller). */
  readonly idTokenHint?: string;
  /** `ui_locales`: the end user's preferred languages (BCP 47 tags), most preferred first. */
  readonly uiLocales: readonly string[];
  /** `acr_values`: the authentication context classes asked for, preferred first (Core §3.1.2.1). */
  readonly acrValues: readonly string[];
}

/** Bounds of what a request can make the server carry, store and echo. */
const MAX_NONCE_LENGTH = 512;
const MAX_LOGIN_HINT_LENGTH = 256;
const MAX_ID_TOKEN_HINT_LENGTH = 8192;
/** `ui_locales` and `acr_values`: space-separated lists, informative only. */
const MAX_LIST_LENGTH = 256;
/** `max_age` is a non-negative integer number of seconds; ten digits reach past year 2286. */
const MAX_AGE_SHAPE = /^\d{1,10}$/;

const PROMPTS: ReadonlySet<string> = new Set(SUPPORTED_PROMPTS);

/**
 * Reads the OpenID Connect parameters of an authorization request's own parameters (each sent once,
 * see `validateAuthorizationRequest`). Throws a redirectable {@link ProtocolError}:
 * `request_not_supported` / `request_uri_not_supported` for request objects (Core §6, advertised
 * unsupported); `invalid_request` for a `prompt` value that is unknown or `none` with another one
 * (Core §3.1.2.1), a `max_age` that is not a non-negative integer, a `response_mode` other than
 * `query`, or a value beyond its bound. The `claims` parameter is ignored (Core §5.5 lets an OP do
 * so; discovery says `claims_parameter_supported: false`).
 */
export function parseOidcParameters(
  parameters: Readonly<Record<string, string>>,
): OidcAuthorizationParameters {
  if (parameters.request !== undefined)
    throw oauthError('request_not_supported', 'Request objects (the request parameter) are not supported.');
  if (parameters.request_uri !== undefined)
    throw oauthError('request_uri_not_supported', 'The request_uri parameter is not supported.');
  const mode = parameters.response_mode;
  if (mode !== undefined && mode !== 'query')
    throw invalidRequest(`The response_mode "${mode.slice(0, 32)}" is not supported; use query.`);
  const prompt = new Set<Prompt>();
  for (const value of (parameters.prompt ?? '').split(' ')) {
    if (value === '') continue;
    if (!PROMPTS.has(value))
      throw invalidRequest(
        `The prompt value "${value.slice(0, 32)}" is not supported (${SUPPORTED_PROMPTS.join(', ')}).`,
      );
    prompt.add(value as Prompt);
  }
  if (prompt.has('none') && prompt.size > 1)
    throw invalidRequest('The prompt value "none" cannot be combined with another value.');
  const {
    nonce,
    max_age: maxAge,
    login_hint: loginHint,
    id_token_hint: idTokenHint,
    ui_locales: uiLocales,
    acr_values: acrValues,
  } = parameters;
  if (uiLocales !== undefined && uiLocales.length > MAX_LIST_LENGTH)
    throw invalidRequest(`The ui_locales is longer than ${MAX_LIST_LENGTH} characters.`);
  if (acrValues !== undefined && acrValues.length > MAX_LIST_LENGTH)
    throw invalidRequest(`The acr_values is longer than ${MAX_LIST_LENGTH} characters.`);
  if (nonce !== undefined && nonce.length > MAX_NONCE_LENGTH)
    throw invalidRequest(`The nonce is longer than ${MAX_NONCE_LENGTH} characters.`);
  if (maxAge !== undefined && !MAX_AGE_SHAPE.test(maxAge))
    throw invalidRequest('The max_age must be a non-negative integer number of seconds.');
  if (loginHint !== undefined && loginHint.length > MAX_LOGIN_HINT_LENGTH)
    throw invalidRequest(`The login_hint is longer than ${MAX_LOGIN_HINT_LENGTH} characters.`);
  if (idTokenHint !== undefined && idTokenHint.length > MAX_ID_TOKEN_HINT_LENGTH)
    throw invalidRequest('The id_token_hint is not an ID token of this issuer.');
  return {
    prompt,
    uiLocales: spaceList(uiLocales),
    acrValues: spaceList(acrValues),
    ...(nonce === undefined ? {} : { nonce }),
    ...(maxAge === undefined ? {} : { maxAge: Number(maxAge) }),
    ...(loginHint === undefined ? {} : { loginHint }),
    ...(idTokenHint === undefined ? {} : { idTokenHint }),
  };
}

/** The values of a space-separated parameter, without empty ones or repeats. */
function spaceList(value: string | undefined): string[] {
  return value === undefined ? [] : [...new Set(value.split(' ').filter(Boolean))];
}

/**
 * The parameters to continue a request with once the user has just logged in: `prompt=login`,
 * `max_age` and `id_token_hint` have done their work (the new session is as fresh as it gets and
 * belongs to whoever the user chose to be), and keeping them would ask for a login again, forever.
 * `auth_time` stays in the ID token regardless.
 */
export function parametersAfterLogin(parameters: Readonly<Record<string, string>>): Record<string, string> {
  const { max_age: _maxAge, id_token_hint: _hint, prompt, ...rest } = parameters;
  const remaining = (prompt ?? '')
    .split(' ')
    .filter((value) => value !== '' && value !== 'login')
    .join(' ');
  return remaining === '' ? rest : { ...rest, prompt: remaining };
}
