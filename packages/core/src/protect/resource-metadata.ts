import { errorAnswer, UsageError } from '../errors.js';
import type { Gatehouse } from '../gatehouse.js';
import { toResponse, withoutBody } from '../http/reply.js';
import { jsonResponse } from '../http/responses.js';
import { methodHandler } from '../http/router.js';
import { resourceUriProblem } from '../oauth2/resource-indicators.js';
import type { AuthenticateOptions, AuthenticationResult, AuthScheme } from './types.js';

/*
 * RFC 9728 OAuth 2.0 Protected Resource Metadata: a protected resource (the host's API, an MCP
 * server) publishes which authorization server issues its tokens, at
 * `/.well-known/oauth-protected-resource{path}`, and names that document in the
 * `resource_metadata` attribute of its Bearer challenges (§5.1), so a client that only knows the
 * resource's URL finds everything else from one refused request.
 */

/** The well-known URI suffix of RFC 9728 §3. */
export const PROTECTED_RESOURCE_WELL_KNOWN = '/.well-known/oauth-protected-resource';

/** What a protected resource publishes about itself. */
export interface ProtectedResourceOptions {
  /**
   * The resource identifier (RFC 9728 §1.2, RFC 8707): an http(s) URL without query or fragment,
   * e.g. `https://example.com/mcp`. It is the `aud` its tokens must carry, so list it in the
   * instance's `resources` option for clients to get tokens for it.
   */
  readonly resource: string;
  /** `scopes_supported`: the scopes used to reach the resource. Default: none listed. */
  readonly scopes?: readonly string[];
  /** `resource_name`: a human-readable name, for consent and client displays. */
  readonly resourceName?: string;
  /** `resource_documentation`: a URL of developer documentation. */
  readonly resourceDocumentation?: string;
}

/** A protected resource of an instance: its metadata document and its bearer check. */
export interface ProtectedResource {
  /** The resource identifier. */
  readonly resource: string;
  /** Where the metadata is published: `{origin}/.well-known/oauth-protected-resource{path}`. */
  readonly metadataUrl: string;
  /** The path of {@link metadataUrl}, for hosts that route by path. */
  readonly metadataPath: string;
  /** The RFC 9728 §2 metadata document. */
  metadata(): Record<string, unknown>;
  /**
   * Answers `GET` (and `HEAD`) of the metadata path with the document, other methods with 405;
   * `undefined` for any other path, so the host falls through.
   */
  fetch(request: Request): Response | undefined;
  /**
   * The options of a bearer check for this resource (`gatehouse.authenticate`, or an adapter's
   * `requireAuth` / `withAuthentication`): tokens must name the resource in `aud`, and every
   * 401/403 challenge carries `resource_metadata` and the required `scope`.
   */
  authenticateOptions(
    scope?: string | readonly string[],
    schemes?: readonly AuthScheme[],
  ): AuthenticateOptions;
  /** `gatehouse.authenticate` with {@link authenticateOptions}: bearer tokens only, by default. */
  authenticate(
    request: Request,
    scope?: string | readonly string[],
    schemes?: readonly AuthScheme[],
  ): Promise<AuthenticationResult>;
}

/**
 * The RFC 9728 §3.1 metadata URL of a resource: the well-known suffix inserted between the origin
 * and the path (`https://example.com/mcp` → `https://example.com/.well-known/oauth-protected-resource/mcp`).
 * Throws `UsageError` (a `TypeError`) for an identifier that is not an http(s) URL without query and fragment.
 */
export function protectedResourceMetadataUrl(resource: string): string {
  const url = checkedResourceUrl(resource);
  return url.origin + PROTECTED_RESOURCE_WELL_KNOWN + (url.pathname === '/' ? '' : url.pathname);
}

/**
 * A protected resource of `gatehouse` for hosts that route themselves: serve `fetch` (the
 * metadata) and check callers with `authenticate`.
 *
 * ```ts
 * const mcp = protectedResource(gatehouse, { resource: 'https://example.com/mcp', scopes: ['tickets:read'] });
 * const metadata = mcp.fetch(request); // the document at /.well-known/oauth-protected-resource/mcp
 * const result = await mcp.authenticate(request, 'tickets:read');
 * ```
 *
 * Throws `UsageError` (a `TypeError`) for a malformed resource identifier.
 */
export function protectedResource(
  gatehouse: Gatehouse,
  options: ProtectedResourceOptions,
): ProtectedResource {
  const metadataUrl = protectedResourceMetadataUrl(options.resource);
  const metadataPath = new URL(metadataUrl).pathname;
  const document = Object.freeze(protectedResourceMetadata(gatehouse.issuer, options));
  const route = {
    path: metadataPath,
    methods: { GET: () => jsonResponse(document, { headers: CACHEABLE }) },
  };
  const authenticateOptions = (
    scope?: string | readonly string[],
    schemes: readonly AuthScheme[] = BEARER_ONLY,
  ): AuthenticateOptions => ({
    schemes,
    ...(scope === undefined ? {} : { scope }),
    resource: options.resource,
    resourceMetadata: metadataUrl,
  });
  return {
    resource: options.resource,
    metadataUrl,
    metadataPath,
    metadata: () => ({ ...document }),
    fetch(request) {
      let pathname: string;
      try {
        pathname = new URL(request.url).pathname;
      } catch {
        return undefined;
      }
      if (pathname !== metadataPath) return undefined;
      try {
        const { handler, head } = methodHandler(route, request.method.toUpperCase());
        return toResponse(head ? withoutBody(handler()) : handler());
      } catch (error) {
        return toResponse(errorAnswer(error, console));
      }
    },
    authenticateOptions,
    authenticate: (request, scope, schemes) =>
      gatehouse.authenticate(request, authenticateOptions(scope, schemes)),
  };
}

/**
 * The RFC 9728 §2 document of a resource whose tokens `issuer` issues: `resource`,
 * `authorization_servers`, `bearer_methods_supported` (the header only: RFC 6750 §2.1, Gatehouse
 * reads no other), and the optional `scopes_supported`, `resource_name`, `resource_documentation`.
 */
export function protectedResourceMetadata(
  issuer: string,
  options: ProtectedResourceOptions,
): Record<string, unknown> {
  checkedResourceUrl(options.resource);
  return {
    resource: options.resource,
    authorization_servers: [issuer],
    ...(options.scopes === undefined ? {} : { scopes_supported: [...options.scopes] }),
    bearer_methods_supported: ['header'],
    ...(options.resourceName === undefined ? {} : { resource_name: options.resourceName }),
    ...(options.resourceDocumentation === undefined
      ? {}
      : { resource_documentation: options.resourceDocumentation }),
  };
}

const BEARER_ONLY: readonly AuthScheme[] = Object.freeze(['bearer'] as AuthScheme[]);
/** Metadata changes with the configuration only: clients may keep it a few minutes. */
const CACHEABLE = { 'Cache-Control': 'public, max-age=300' };

function checkedResourceUrl(resource: string): URL {
  const problem = typeof resource === 'string' ? resourceUriProblem(resource) : 'is not a string';
  if (problem)
    throw new UsageError(
      `protected resource: "${String(resource)}" ${problem}.`,
      'ERR_INVALID_ARGUMENT',
      'resource',
    );
  const url = new URL(resource);
  if (url.protocol !== 'https:' && url.protocol !== 'http:')
    throw new UsageError(
      `protected resource: "${resource}" is not an http(s) URL (RFC 9728 section 1.2).`,
      'ERR_INVALID_ARGUMENT',
      'resource',
    );
  if (url.search !== '' || resource.includes('?'))
    throw new UsageError(
      `protected resource: "${resource}" has a query; use a path (RFC 9728 section 1.2).`,
      'ERR_INVALID_ARGUMENT',
      'resource',
    );
  return url;
}
