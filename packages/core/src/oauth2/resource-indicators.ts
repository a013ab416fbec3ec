import type { TokenPolicy } from '../context.js';
import { oauthError, type ProtocolError } from '../errors.js';
import type { Params } from '../http/form.js';
import type { ClientRecord } from '../storage/types.js';

/*
 * RFC 8707 resource indicators: the `resource` parameter of authorization and token requests names
 * the protected resources (APIs, MCP servers) the access token is for; the token's `aud` is exactly
 * the granted resources. Without `resource`, tokens keep the instance's default audience.
 */

/** Most `resource` values one request may carry: each is compared with the known ones, so bounded. */
export const MAX_RESOURCES_PER_REQUEST = 10;
/** Longest accepted resource URI, in characters. */
export const MAX_RESOURCE_LENGTH = 2048;

/** 400 `invalid_target` (RFC 8707 §2). */
export const invalidTarget = (description: string): ProtocolError =>
  oauthError('invalid_target', description);

/**
 * Why `value` cannot be a resource identifier, or `undefined` when it can: RFC 8707 §2 requires an
 * absolute URI without a fragment component.
 */
export function resourceUriProblem(value: string): string | undefined {
  if (value.length > MAX_RESOURCE_LENGTH) return `is longer than ${MAX_RESOURCE_LENGTH} characters`;
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return 'is not an absolute URI';
  }
  // `new URL` resolves nothing here (no base), but it forgives spaces and backslashes: refuse them.
  if (/[\s\\]/.test(value) || !/^[a-zA-Z][a-zA-Z0-9+.-]*:/.test(value)) return 'is not an absolute URI';
  if (value.includes('#') || url.hash !== '') return 'has a fragment';
  return undefined;
}

/**
 * The `resource` values of a request, validated (RFC 8707 §2): absolute URIs without a fragment,
 * at most {@link MAX_RESOURCES_PER_REQUEST}, duplicates removed; empty when none was sent. The
 * parameter may be repeated (one resource per value); a value may also list several separated by
 * spaces, which no URI contains, since that is how the login and consent forms carry them.
 */
export function requestedResources(params: Params): string[] {
  const sent = params.getAll('resource');
  // Most token requests name no resource.
  if (sent.length === 0) return sent;
  const values = sent.flatMap((value) => value.split(' ').filter(Boolean));
  if (values.length > MAX_RESOURCES_PER_REQUEST) {
    throw invalidTarget(`At most ${MAX_RESOURCES_PER_REQUEST} resource parameters are accepted.`);
  }
  for (const value of values) {
    const problem = resourceUriProblem(value);
    if (problem) throw invalidTarget(`A resource parameter ${problem} (RFC 8707 section 2).`);
  }
  return [...new Set(values)];
}

/**
 * The resources to grant for an authorization request (RFC 8707 §2): `undefined` when it names
 * none (tokens get the default audience), else the requested ones, each of which must be a
 * resource this instance serves (`resources`, or the default audience) and, when the client lists
 * its own `resources`, one of those; otherwise `invalid_target`.
 */
export function authorizedResources(
  ctx: { readonly tokens: Pick<TokenPolicy, 'resources'> },
  client: ClientRecord,
  requested: readonly string[],
): readonly string[] | undefined {
  if (requested.length === 0) return undefined;
  for (const resource of requested) {
    if (!ctx.tokens.resources.has(resource) || (client.resources && !client.resources.includes(resource))) {
      throw invalidTarget('A requested resource is unknown, or not available to this client.');
    }
  }
  return requested;
}

/**
 * The audience of an access token issued from a grant at the token endpoint: the grant's own
 * resources (those the user authorized, carried by the code or refresh token; the default audience
 * when it has none) unless the request names some, which must all be among them (RFC 8707 §2.2:
 * a token request may narrow, never widen). The grant's record is never widened, so a later
 * request can ask for another of its resources. The binding is to what was authorized, not to
 * what the client sends now.
 */
export function tokenAudience(
  ctx: { readonly tokens: Pick<TokenPolicy, 'audienceList'> },
  granted: readonly string[] | undefined,
  requested: readonly string[],
): readonly string[] | undefined {
  if (requested.length === 0) return granted;
  const allowed = granted ?? ctx.tokens.audienceList;
  for (const resource of requested) {
    if (!allowed.includes(resource)) {
      throw invalidTarget('A requested resource was not part of the authorization grant.');
    }
  }
  return requested;
}

/** Whether every resource of `requested` is in `granted` (absent lists mean "the default audience only"). */
export function resourcesCovered(
  requested: readonly string[] | undefined,
  granted: readonly string[] | undefined,
): boolean {
  if (requested === undefined) return true;
  return granted !== undefined && requested.every((resource) => granted.includes(resource));
}
