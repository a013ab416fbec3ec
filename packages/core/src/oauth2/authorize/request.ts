import type { Context } from '../../context.js';
import { invalidRequest, oauthError, type ProtocolError } from '../../errors.js';
import type { Params } from '../../http/form.js';
import {
  OIDC_AUTHORIZATION_PARAMETERS,
  type OidcAuthorizationParameters,
  parseOidcParameters,
} from '../../oidc/authorization-parameters.js';
import { idTokenAlgorithm } from '../../oidc/id-token.js';
import type { ClientRecord } from '../../storage/types.js';
import type { AuthorizationDetail } from '../../tokens/authorization-details.js';
import type { AuthorizationDetailsService } from '../authorization-details/feature.js';
import { clientMayUse } from '../grants/grant-tokens.js';
import type { PushedRequest } from '../par/pushed-requests.js';
import { isValidCodeChallenge } from '../pkce.js';
import { authorizedResources, requestedResources } from '../resource-indicators.js';
import { parseScope, resolveRequestedScope } from '../scope.js';

/**
 * The parameters of an authorization request Gatehouse reads (RFC 6749 §4.1.1, RFC 7636 §4.3,
 * OpenID Connect Core §3.1.2.1).
 */
export const AUTHORIZATION_PARAMETERS = [
  'response_type',
  'client_id',
  'redirect_uri',
  'scope',
  'state',
  'code_challenge',
  'code_challenge_method',
  // RFC 9449 §10: the thumbprint of the DPoP key the code is bound to.
  'dpop_jkt',
  // RFC 9396 §2: read only when rich authorization requests are on.
  'authorization_details',
  ...OIDC_AUTHORIZATION_PARAMETERS,
] as const;

/**
 * Longest `state`, in UTF-16 code units (RFC 6749 sets none). It is echoed in the `Location` of the
 * redirect (headers beyond ~8 KB are refused by many proxies and servers) and stored with an
 * interaction or a pushed request; a longer one is `invalid_request`, redirected without it.
 */
export const MAX_STATE_LENGTH = 2048;

/**
 * Where the answer to an authorization request goes, once client and redirect URI are trusted.
 * Until then, errors must not be redirected anywhere (RFC 6749 §4.1.2.1).
 */
export interface AuthorizationTarget {
  readonly client: ClientRecord;
  /** The URI to redirect to: the one sent, or the client's only registered one. */
  readonly redirectUri: string;
  /** Whether the request named `redirect_uri` (then the token request must repeat it, RFC 6749 §4.1.3). */
  readonly redirectUriSent: boolean;
  /** `state`, exactly as sent; absent when none, an empty, a repeated or an over-long one was sent. */
  readonly state?: string;
}

/** A fully validated authorization request. */
export interface AuthorizationRequest extends AuthorizationTarget {
  /** The scope to grant (requested, or the default), space-separated, possibly empty. */
  readonly scope: string;
  /** The DPoP key the code is bound to (RFC 9449 §10 `dpop_jkt`), when sent. */
  readonly dpopJkt?: string;
  /** The S256 `code_challenge`, when sent. */
  readonly codeChallenge?: string;
  /**
   * The resources (RFC 8707 `resource`) the grant is for, each one the instance knows; absent when
   * the request named none (tokens then get the default audience).
   */
  readonly resources?: readonly string[];
  /** The OpenID Connect parameters (`nonce`, `prompt`, `max_age`, hints). */
  readonly oidc: OidcAuthorizationParameters;
  /**
   * The authorization details asked for (RFC 9396 `authorization_details`), checked by the
   * instance's types; absent when none were (or the feature is off).
   */
  readonly authorizationDetails?: readonly AuthorizationDetail[];
  /**
   * The request's own parameters (those of {@link AUTHORIZATION_PARAMETERS} that were sent), to carry
   * through the login and consent forms and to rebuild the authorize URL. Unknown ones are dropped.
   * Several `resource` values travel as one, separated by spaces.
   */
  readonly parameters: Readonly<Record<string, string>>;
  /**
   * The pushed request (RFC 9126) this one came from: `parameters` is then only `client_id` and
   * the in-flight reference, and issuing the code ends it.
   */
  readonly pushed?: PushedRequest;
}

/**
 * Finds the client and the redirect URI (RFC 6749 §3.1.2.3, RFC 9700 §4.1.3: exact string
 * comparison with a registered URI; `redirect_uri` may be omitted only when exactly one is
 * registered). Throws `invalid_request` for problems that must be shown to the user, never
 * redirected: unknown client, missing or unregistered redirect URI, or either parameter repeated.
 */
export async function resolveAuthorizationTarget(
  ctx: Pick<Context, 'clients'>,
  params: Params,
  request?: Request,
): Promise<AuthorizationTarget> {
  const clientId = params.get('client_id');
  if (clientId === undefined) throw invalidRequest('The client_id parameter is missing.');
  const sentRedirectUri = params.get('redirect_uri');
  const client = await ctx.clients.findClient(clientId, request);
  if (!client) throw invalidRequest('The client is unknown.');
  let redirectUri: string;
  if (sentRedirectUri === undefined) {
    if (client.redirectUris.length !== 1) {
      throw invalidRequest('The redirect_uri parameter is required: this client has several registered.');
    }
    redirectUri = client.redirectUris[0]!;
  } else {
    if (!client.redirectUris.includes(sentRedirectUri)) {
      throw invalidRequest('The redirect_uri is not registered for this client.');
    }
    redirectUri = sentRedirectUri;
  }
  // RFC 6749 §4.1.2.1: every redirect carries `state` exactly as received, also when the next step
  // refuses it (a control character): the client matches its own error. Not a repeated one (which
  // value?) nor an over-long one (refused too: echoing it would defeat the bound); both are
  // `invalid_request`, without `state`.
  const state = params.asSent('state');
  return {
    client,
    redirectUri,
    redirectUriSent: sentRedirectUri !== undefined,
    ...(state === undefined || state.length > MAX_STATE_LENGTH ? {} : { state }),
  };
}

/**
 * Validates the rest of the request for a trusted target. Throws a {@link ProtocolError} that is to
 * be redirected to the client (RFC 6749 §4.1.2.1): `invalid_request` (repeated parameter, PKCE
 * missing where required or not S256, a bad OpenID Connect parameter), `unsupported_response_type`,
 * `unauthorized_client`, `invalid_scope`, `invalid_target` (RFC 8707), `request_not_supported`,
 * `request_uri_not_supported`, `invalid_authorization_details` (RFC 9396 §5, checked by `details`, the
 * instance's rich authorization requests; without it the parameter is ignored).
 */
export function validateAuthorizationRequest(
  ctx: Pick<Context, 'keys' | 'tokens'>,
  target: AuthorizationTarget,
  params: Params,
  details?: AuthorizationDetailsService,
): AuthorizationRequest {
  const parameters: Record<string, string> = {};
  for (const name of AUTHORIZATION_PARAMETERS) {
    const value = params.get(name); // throws invalid_request when repeated
    if (value !== undefined) parameters[name] = value;
  }
  if (parameters.state !== undefined && parameters.state.length > MAX_STATE_LENGTH)
    throw invalidRequest(`The state is longer than ${MAX_STATE_LENGTH} characters.`);
  const responseType = parameters.response_type;
  if (responseType === undefined) throw invalidRequest('The response_type parameter is missing.');
  if (responseType !== 'code') {
    throw oauthError('unsupported_response_type', 'Only response_type=code is supported.');
  }
  const { client } = target;
  if (!clientMayUse(client, 'authorization_code')) {
    throw oauthError('unauthorized_client', 'The client may not use the authorization code grant.');
  }
  const codeChallenge = checkPkce(ctx, client, parameters.code_challenge, parameters.code_challenge_method);
  const oidc = parseOidcParameters(parameters);
  const dpopJkt = parameters.dpop_jkt;
  // A JWK SHA-256 thumbprint (RFC 7638): 32 bytes, base64url.
  if (dpopJkt !== undefined && !/^[A-Za-z0-9_-]{43}$/.test(dpopJkt))
    throw invalidRequest('The dpop_jkt must be a base64url JWK SHA-256 thumbprint (RFC 9449 section 10).');
  const scope = resolveRequestedScope(ctx, client, parameters.scope);
  if (parseScope(scope).includes('openid') && !ctx.keys.signers.has(idTokenAlgorithm(ctx.keys, client))) {
    throw oauthError(
      'unauthorized_client',
      `The client's id_token_signed_response_alg ${client.idTokenSignedResponseAlg} has no key on this server.`,
    );
  }
  // RFC 8707 §2: every resource must be one this instance serves, else `invalid_target`.
  const resources = authorizedResources(ctx, client, requestedResources(params));
  if (resources !== undefined) parameters.resource = resources.join(' ');
  const authorizationDetails = authorizationDetailsOf(details, client, parameters);
  return {
    ...target,
    scope,
    parameters,
    oidc,
    ...(authorizationDetails === undefined ? {} : { authorizationDetails }),
    ...(codeChallenge === undefined ? {} : { codeChallenge }),
    ...(dpopJkt === undefined ? {} : { dpopJkt }),
    ...(resources === undefined ? {} : { resources }),
  };
}

/**
 * The request's `authorization_details` (RFC 9396 §2), checked by the instance's types; the
 * carried parameter becomes the checked details' compact JSON. Without the feature, the parameter
 * is dropped (RFC 6749 §3.1: unknown parameters are ignored).
 */
function authorizationDetailsOf(
  details: AuthorizationDetailsService | undefined,
  client: ClientRecord,
  parameters: Record<string, string>,
): readonly AuthorizationDetail[] | undefined {
  const text = parameters.authorization_details;
  if (text === undefined) return undefined;
  if (details === undefined) {
    delete parameters.authorization_details;
    return undefined;
  }
  const checked = details.parse(text, client);
  parameters.authorization_details = JSON.stringify(checked);
  return checked;
}

/** RFC 7636 §4.3 and RFC 9700 §2.1.1: only S256; required for public clients (or all, by policy). */
function checkPkce(
  ctx: Pick<Context, 'tokens'>,
  client: ClientRecord,
  challenge?: string,
  method?: string,
): string | undefined {
  if (challenge === undefined) {
    if (method !== undefined)
      throw invalidRequest('A code_challenge_method was sent without a code_challenge.');
    if (client.type === 'public' || ctx.tokens.requirePkce === 'all') {
      throw invalidRequest(
        'PKCE is required: send a code_challenge with code_challenge_method=S256 (RFC 7636).',
      );
    }
    return undefined;
  }
  // An absent method means "plain" (RFC 7636 §4.3), which offers no protection against a stolen code.
  if (method !== 'S256')
    throw invalidRequest('Only code_challenge_method=S256 is supported; "plain" is refused.');
  if (!isValidCodeChallenge(challenge)) {
    throw invalidRequest('The code_challenge must be a base64url-encoded SHA-256 digest (43 characters).');
  }
  return challenge;
}
