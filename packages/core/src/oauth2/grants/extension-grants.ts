import type { Context } from '../../context.js';
import { ConfigurationError, invalidScope, oauthError, ProtocolError } from '../../errors.js';
import type { Feature, GrantHandler } from '../../feature.js';
import type { ExtensionGrant, ExtensionGrantDecision } from '../../options.js';
import { clientSubject, userSubject } from '../../storage/subject.js';
import { signAccessToken } from '../../tokens/access-token.js';
import { CLIENT_AUTH_METHODS } from '../client-auth/methods.js';
import { authorizedResources, requestedResources } from '../resource-indicators.js';
import { parseScope, resolveRequestedScope } from '../scope.js';
import { tokenResponse } from '../token-response.js';
import { tokenIssued } from './grant-tokens.js';

/** The errors a host's grant may answer (RFC 6749 §5.2). */
const DECISION_ERRORS = new Set(['invalid_grant', 'invalid_request', 'invalid_scope', 'unauthorized_client']);

/**
 * The host's own grant types (`extensionGrants`, RFC 6749 §4.5), as a feature: each is served at
 * the token endpoint like Gatehouse's, after the same client authentication, registration check
 * (the client's `grantTypes` must name it) and DPoP proof. The host's `handle` decides who the
 * token is for; Gatehouse resolves the scope (within the client's) and the resources (RFC 8707),
 * signs the access token (DPoP-bound with a proof), emits `token.issued` and answers. No refresh
 * token and no ID token: a host grant is asked again.
 */
export const extensionGrantsFeature: Feature = {
  name: 'extension grants',
  setup(options) {
    const given = options.extensionGrants;
    if (given === undefined) return {};
    if (!Array.isArray(given))
      throw new ConfigurationError('extensionGrants: expected an array of { type, handle }.', {
        code: 'ERR_CONFIG_INVALID_OPTION',
        option: 'extensionGrants',
      });
    const grants: Record<string, GrantHandler> = {};
    given.forEach((grant: ExtensionGrant, i) => {
      const option = `extensionGrants[${i}]`;
      if (typeof grant?.type !== 'string' || !isAbsoluteUri(grant.type))
        throw new ConfigurationError(
          `${option}.type: expected an absolute URI (RFC 6749 section 4.5), got ${JSON.stringify(grant?.type)}.`,
          { code: 'ERR_CONFIG_INVALID_OPTION', option: `${option}.type` },
        );
      if (typeof grant.handle !== 'function')
        throw new ConfigurationError(`${option}.handle: expected a function (request) => decision.`, {
          code: 'ERR_CONFIG_INVALID_OPTION',
          option: `${option}.handle`,
        });
      if (Object.hasOwn(grants, grant.type))
        throw new ConfigurationError(`${option}.type: ${grant.type} is listed twice.`, {
          code: 'ERR_CONFIG_CONFLICTING_OPTIONS',
          option: `${option}.type`,
        });
      grants[grant.type] = hostGrant(grant);
    });
    return { grants };
  },
};

/** An absolute URI (RFC 3986 §4.3): a scheme, then anything. `urn:…` and `https://…` alike. */
function isAbsoluteUri(text: string): boolean {
  return /^[A-Za-z][A-Za-z0-9+.-]*:[^\s]+$/.test(text);
}

/** The token endpoint's handler of one host grant. */
function hostGrant(grant: ExtensionGrant): GrantHandler {
  return async (
    ctx: Pick<Context, 'issuer' | 'clock' | 'randomBytes' | 'emit' | 'logger' | 'users' | 'keys' | 'tokens'>,
    params,
    { client, method },
    dpop,
  ) => {
    const scope = resolveRequestedScope(ctx, client, params.get('scope'));
    let decision: ExtensionGrantDecision;
    try {
      decision = await grant.handle({
        grantType: grant.type,
        parameter: (name) => params.get(name),
        client: { id: client.id, authenticated: CLIENT_AUTH_METHODS[method]?.provesIdentity === true },
        scope,
      });
    } catch (error) {
      if (error instanceof ProtocolError) throw error; // a repeated parameter the host read
      throw oauthError('temporarily_unavailable', `The ${grant.type} grant could not be decided.`, {
        retryAfter: 1,
        cause: error,
      });
    }
    if (typeof decision !== 'object' || decision === null)
      throw new TypeError(
        `extensionGrants (${grant.type}): handle answered ${String(decision)}, not a decision.`,
      );
    if ('error' in decision) {
      if (!DECISION_ERRORS.has(decision.error))
        throw new TypeError(
          `extensionGrants (${grant.type}): unknown error ${JSON.stringify(decision.error)}.`,
        );
      throw oauthError(decision.error, decision.description ?? 'The grant was refused.');
    }
    // The host may narrow the scope, never widen it (RFC 6749 §3.3).
    const granted = decision.scope ?? scope;
    const asked = new Set(parseScope(scope));
    if (parseScope(granted).some((token) => !asked.has(token)))
      throw invalidScope('The granted scope is wider than the scope asked for.');
    let subject: ReturnType<typeof userSubject>;
    if ('userId' in decision) {
      if (typeof decision.userId !== 'string' || decision.userId === '')
        throw new TypeError(`extensionGrants (${grant.type}): userId must be a non-empty string.`);
      // A user the host no longer knows gets no token (as a refresh token of a deleted user).
      if ((await ctx.users.findUser(decision.userId)) === null)
        throw oauthError('invalid_grant', 'The grant names no known user.');
      subject = userSubject(decision.userId);
    } else subject = clientSubject(client.id);
    const audience = authorizedResources(ctx, client, requestedResources(params));
    const access = await signAccessToken(ctx, {
      family: 'oauth2',
      subject,
      clientId: client.id,
      scope: granted,
      ...(audience === undefined ? {} : { audience }),
      ...(dpop === undefined ? {} : { jkt: dpop.jkt }),
      ttl: ctx.tokens.accessTokenTtl,
    });
    ctx.emit(tokenIssued(client.id, subject, grant.type));
    return tokenResponse({
      accessToken: access.token,
      tokenType: dpop ? 'DPoP' : 'Bearer',
      expiresIn: ctx.tokens.accessTokenTtl,
      scope: granted,
    });
  };
}
