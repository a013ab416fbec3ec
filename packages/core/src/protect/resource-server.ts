import { createLocalJWKSet, errors, type JSONWebKeySet, type JWTVerifyGetKey, jwtVerify } from 'jose';
import {
  checkDpopProof,
  type DpopChecks,
  dpopHeader,
  httpOrigin,
  isRefusal,
  requestHtus,
} from '../dpop/proof.js';
import { dpopSettings } from '../dpop/settings.js';
import { ConfigurationError, oauthError, ProtocolError, UsageError } from '../errors.js';
import { bearerCredentials, dpopCredentials, isB64Token } from '../http/bearer.js';
import { clientAddressOf } from '../http/client-address.js';
import { defaultTransport } from '../http/default-transport.js';
import { HOST_CONFIGURED_URL_POLICY, type OutboundFetch, refusedUrlReason } from '../http/guarded-fetch.js';
import { withHostRequest } from '../http/host-request.js';
import { ENDPOINTS } from '../oauth2/metadata.js';
import type { DpopOptions } from '../options.js';
import { kvReplayStore } from '../storage/kv/replay.js';
import { memoryKeyValueStore } from '../storage/memory/key-value.js';
import { clientSubject, userSubject } from '../storage/subject.js';
import type { KeyValueStore } from '../storage/types.js';
import type { TokenRejection } from '../tokens/access-token.js';
import { parseAct } from '../tokens/act.js';
import { authorizationDetailsClaim } from '../tokens/authorization-details.js';
import { webRandomBytes } from '../tokens/secrets.js';
import {
  bearerChallenge,
  credentialsRequired,
  insufficientScope,
  invalidBearerRequest,
  invalidToken,
  subjectNotAccepted,
} from './challenge.js';
import {
  boundTokenAsBearer,
  dpopInsufficientScope,
  dpopInvalidRequest,
  dpopInvalidToken,
  dpopProofRefused,
} from './dpop-challenge.js';
import { type IntrospectionAnswer, type IntrospectionOptions, introspection } from './introspection.js';
import { issuerKeys } from './issuer-keys.js';
import type { AuthenticateOptions, AuthenticationResult, Caller } from './types.js';

/*
 * A resource server that runs apart from the Gatehouse instance (another service, an edge
 * function, an MCP server on another host): it checks access tokens by themselves (RFC 9068 §4),
 * with the instance's public keys, fetched from its JWKS, or asks the instance's introspection
 * endpoint about each (RFC 7662, `introspection.ts`). Runtime-neutral (Web Crypto and `fetch`).
 */

/** Options of {@link resourceServer}. */
export interface ResourceServerOptions {
  /**
   * The instance's issuer, as in its tokens' `iss` (e.g. `https://example.com/demo`); a trailing
   * slash is dropped, as the instance drops it from its own.
   */
  readonly issuer: string;
  /** This resource's identifier: tokens must name it in `aud` (RFC 8707, RFC 9068 §4). */
  readonly resource: string;
  /**
   * Where the keys are fetched: https, or http to a loopback host. Default:
   * `{issuer}/oauth2/v1/keys`, the instance's JWKS. A fetched set is trusted for its `max-age`,
   * at most 300 s: a key revoked at the issuer verifies here for at most that long.
   */
  readonly jwksUri?: string;
  /** The keys themselves, instead of fetching them (tests, air-gapped deployments). */
  readonly jwks?: JSONWebKeySet;
  /** Algorithms accepted (never `none`). Default: `ES256`, `EdDSA`, `RS256`, Gatehouse's. */
  readonly algorithms?: readonly string[];
  /** Clock tolerance, in seconds, for `exp` and `iat`. Default 5. */
  readonly clockToleranceSeconds?: number;
  /** The resource's RFC 9728 metadata URL, named in every challenge (`resource_metadata`). */
  readonly resourceMetadata?: string;
  /**
   * The `fetch` used for the JWKS, the metadata and introspection. Default: the global one (the
   * JWKS), Gatehouse's outbound transport (introspection). It must not follow redirects.
   */
  readonly fetch?: (url: string, init: RequestInit) => Promise<Response>;
  /**
   * Ask the issuer's introspection endpoint (RFC 7662) about every token instead of verifying it
   * here: revocations are seen (within `cacheTtl`), and opaque tokens work. The resource server
   * authenticates as a confidential client of the issuer whose registration names this resource
   * in `introspects`. Exclusive with `jwks`, `jwksUri` and `algorithms`.
   */
  readonly introspection?: IntrospectionOptions;
  /**
   * How to find the client address of a request, for the per-network budget of `introspection`
   * (made-up tokens are counted per IPv4 address and /24, IPv6 /64 and /48). Default: the address
   * the adapter recorded with `setClientAddress` of `@gatehousejs/core/adapter` (the socket
   * address, honouring the framework's proxy settings), as the instance's
   * `rateLimit.clientAddress`. Requests without an address are not counted.
   */
  readonly clientAddress?: (request: Request) => string | undefined;
  /**
   * DPoP (RFC 9449 §7): DPoP-bound tokens are accepted with `Authorization: DPoP` and a proof,
   * and refused as bearer tokens. The proof algorithms (default those of the instance's default)
   * and lifetime (default 60 s), and the key-value store proof ids are remembered in for single
   * use (default an in-memory one of this process: give a shared one, e.g. an engine view's `kv`,
   * when several processes serve the resource). Server nonces are not required here.
   */
  readonly dpop?: Pick<DpopOptions, 'signingAlgorithms' | 'proofLifetime'> & {
    readonly kv?: KeyValueStore;
    /**
     * The public origin clients reach this resource at (scheme, host and port, e.g.
     * `https://api.example.com`): a proof's `htu` must be the request's path at this origin (RFC
     * 9449 §4.3 item 9), whatever host and scheme the request arrived with (its `Host` header is
     * the client's to write; a TLS-terminating proxy makes it `http`). Default: the origin of
     * `resource` when it is an http(s) URL; required when it is not (a URN), else the resource
     * server refuses to start.
     */
    readonly origin?: string;
  };
}

/** The bearer check of a resource server apart from the instance. */
export interface ResourceServer {
  /**
   * The caller of a request's `Authorization: Bearer` token, if it is a valid access token of the
   * issuer for this resource holding every `scope`; else the ready 400/401/403 answer, its
   * challenge naming `resource_metadata` when configured.
   *
   * The second argument is the required scope, or the {@link AuthenticateOptions} an instance's
   * `authenticate` takes, so that a resource server plugs in wherever an instance does (every
   * adapter's `requireAuth`, `defineOperations`): `schemes` must include `'bearer'` (the only
   * scheme a resource server apart from the instance can check), `resource`, if given, must be
   * this resource, and `subjects` (default `['user']`) is enforced as by the instance.
   */
  authenticate(
    request: Request,
    scopeOrOptions?: string | readonly string[] | AuthenticateOptions,
  ): Promise<AuthenticationResult>;
}

const DEFAULT_ALGORITHMS = ['ES256', 'EdDSA', 'RS256'];

/**
 * A bearer check for a resource server apart from the instance (no shared storage): the signature
 * with the issuer's published keys, `typ: at+jwt`, `iss`, `aud` (this resource), lifetime and
 * scope. Keys are fetched on first use (`issuer-keys.ts`), trusted for the JWKS answer's `max-age`
 * (at most 300 s, at least 30 s) and fetched again for an unknown `kid` (at most once per 10 s), so
 * a key rotation needs no restart and a revoked signing key stops verifying within that time. This
 * cannot see revoked tokens (those live in the instance's storage): keep access tokens
 * short-lived, or give `introspection` where a revoked token must stop (within
 * `introspection.cacheTtl`): the instance is then asked about each token (RFC 7662), and its
 * answer checked the same way (`active`, `iss`, `aud`, lifetime, scope, DPoP binding).
 */
export function resourceServer(options: ResourceServerOptions): ResourceServer {
  const issuer = options.issuer.replace(/\/+$/, '');
  const given = options.fetch;
  const transport: OutboundFetch | undefined =
    given &&
    (({ url, method = 'GET', headers, body, signal }) =>
      given(url.href, { method, headers, signal, redirect: 'manual', ...(body ? { body } : {}) }));
  const signedOnly = options.introspection !== undefined && options.introspection.signedTokensOnly !== false;
  const keys =
    options.introspection !== undefined && !signedOnly
      ? undefined
      : options.jwks
        ? createLocalJWKSet(options.jwks)
        : issuerKeys(
            jwksUrl(options, issuer),
            transport ?? defaultTransport().fetch,
            HOST_CONFIGURED_URL_POLICY,
            () => Date.now(),
          );
  const tolerance = options.clockToleranceSeconds ?? 5;
  const algorithms = [...(options.algorithms ?? DEFAULT_ALGORITHMS)];
  const introspect =
    options.introspection === undefined
      ? undefined
      : introspection(
          issuer,
          options.introspection,
          transport,
          () => Date.now(),
          signedOnly ? (token) => signedByIssuer(token, keys!, { algorithms, issuer, tolerance }) : undefined,
        );
  if (options.clientAddress !== undefined && typeof options.clientAddress !== 'function')
    throw new ConfigurationError(
      'resourceServer: clientAddress must be a function (request) => string | undefined.',
      { code: 'ERR_CONFIG_INVALID_OPTION', option: 'clientAddress' },
    );
  // The host's lookup gets a platform `Request` (http/host-request.ts).
  const clientAddress = options.clientAddress ? withHostRequest(options.clientAddress) : clientAddressOf;
  if (introspect && !signedOnly) {
    const conflicting = (['jwks', 'jwksUri', 'algorithms'] as const).find(
      (name) => options[name] !== undefined,
    );
    if (conflicting)
      throw new ConfigurationError(
        `resourceServer: ${conflicting} and introspection with signedTokensOnly: false exclude each other (introspected tokens are not verified here).`,
        { code: 'ERR_CONFIG_CONFLICTING_OPTIONS', option: conflicting },
      );
  }
  const proofs: DpopChecks = {
    issuer,
    clock: { now: Date.now, toleranceSeconds: tolerance },
    settings: dpopSettings(
      {
        ...(options.dpop?.signingAlgorithms === undefined
          ? {}
          : { signingAlgorithms: options.dpop.signingAlgorithms }),
        ...(options.dpop?.proofLifetime === undefined ? {} : { proofLifetime: options.dpop.proofLifetime }),
      },
      webRandomBytes,
    ),
    storage: { replay: kvReplayStore(options.dpop?.kv ?? memoryKeyValueStore()) },
  };
  const proofOrigins = [resourceOrigin(options)];
  const realm = proofs;
  /** `dpopRequest`: the request, when the scheme is DPoP. */
  const verify = async (
    request: Request,
    token: string,
    required: readonly string[],
    dpopRequest?: Request,
  ): Promise<Caller> => {
    const challenge = {
      scope: required,
      ...(options.resourceMetadata === undefined ? {} : { resourceMetadata: options.resourceMetadata }),
    };
    const isDpop = dpopRequest !== undefined;
    const refuseToken = (reason: TokenRejection | string) =>
      isDpop
        ? dpopInvalidToken(realm, reason, challenge)
        : invalidToken(realm, reason as TokenRejection, challenge);
    if (!isB64Token(token) || token.length > 8192)
      throw isDpop
        ? dpopInvalidRequest(realm, 'The DPoP authorization header is malformed.', challenge)
        : invalidBearerRequest(realm, 'The Bearer authorization header is malformed.', challenge);
    let payload: Record<string, unknown>;
    if (introspect) {
      // The answer, not the token, is what is checked (RFC 7662 §2.2): an opaque token works too.
      payload = await introspect(token, clientAddress(request));
      const refusal = introspectedRefusal(payload, issuer, options.resource, Date.now(), tolerance);
      if (refusal) throw refuseToken(refusal);
    } else
      try {
        ({ payload } = await jwtVerify(token, keys!, {
          algorithms,
          typ: 'at+jwt',
          issuer,
          audience: options.resource,
          clockTolerance: tolerance,
          requiredClaims: ['sub', 'exp', 'iat', 'jti'],
        }));
      } catch (error) {
        // The keys could not be fetched: the token may be fine, so not its fault (503, not 401).
        if (error instanceof errors.JWKSTimeout || !(error instanceof errors.JOSEError)) {
          throw oauthError('temporarily_unavailable', 'The signing keys could not be fetched.', {
            retryAfter: 1,
            cause: error,
          });
        }
        throw refuseToken(rejectionOf(error));
      }
    const {
      sub,
      scope = '',
      client_id: clientId,
      token_family: family,
      jti,
      exp,
      sub_kind: subKind,
      cnf,
    } = payload;
    if (
      typeof sub !== 'string' ||
      typeof scope !== 'string' ||
      (typeof jti !== 'string' && !(introspect && jti === undefined)) ||
      typeof exp !== 'number'
    )
      throw refuseToken('invalid');
    // Gatehouse's token family; another issuer's introspection answers none (an OAuth token).
    if (family !== 'oauth2' && family !== 'auth_api' && !(introspect && family === undefined))
      throw refuseToken('invalid');
    if (clientId !== undefined && typeof clientId !== 'string') throw refuseToken('invalid');
    if (subKind !== undefined && (subKind !== 'client' || clientId !== sub)) throw refuseToken('invalid');
    // RFC 8693 §4.1: a token issued by token exchange names its actor; a malformed chain is invalid.
    const act = parseAct(payload.act);
    if (act === null) throw refuseToken('invalid');
    // RFC 9396 §9.1 (a JWT) and §9.2 (an introspection answer): the details the token grants.
    const authorizationDetails = authorizationDetailsClaim(payload.authorization_details);
    if (authorizationDetails === null) throw refuseToken('invalid');
    const jkt = (cnf as { jkt?: unknown } | undefined)?.jkt;
    if (cnf !== undefined && typeof jkt !== 'string') throw refuseToken('invalid');
    if (!isDpop && typeof jkt === 'string')
      throw boundTokenAsBearer(realm, bearerChallenge(realm, {}, challenge), challenge);
    if (isDpop) {
      if (typeof jkt !== 'string')
        throw refuseToken('The access token is not DPoP-bound: present it as a Bearer token.');
      const proof = dpopHeader(dpopRequest);
      if (proof === undefined || proof === null)
        throw dpopProofRefused(
          realm,
          'invalid_dpop_proof',
          'Send exactly one DPoP proof with a DPoP token.',
          challenge,
        );
      const outcome = await checkDpopProof(proofs, dpopRequest, proof, {
        htu: requestHtus(proofOrigins, dpopRequest),
        accessToken: token,
        requireNonce: false,
      });
      if (isRefusal(outcome)) throw dpopProofRefused(realm, outcome.error, outcome.description, challenge);
      if (outcome.jkt !== jkt)
        throw dpopProofRefused(
          realm,
          'invalid_dpop_proof',
          'The DPoP proof is not signed by the key the token is bound to.',
          challenge,
        );
    }
    const scopes = scope === '' ? [] : scope.split(' ');
    for (const needed of required)
      if (!scopes.includes(needed))
        throw isDpop
          ? dpopInsufficientScope(realm, required, challenge)
          : insufficientScope(realm, required, challenge);
    return {
      sub,
      subject: subKind === 'client' ? clientSubject(sub) : userSubject(sub),
      scheme: 'bearer',
      ...(clientId === undefined ? {} : { clientId }),
      scope: scopes,
      family: family ?? 'oauth2',
      ...(jti === undefined ? {} : { tokenId: jti }),
      expiresAt: exp,
      ...(typeof jkt === 'string' ? { dpopJkt: jkt } : {}),
      ...(act === undefined ? {} : { act }),
      ...(authorizationDetails === undefined ? {} : { authorizationDetails }),
    };
  };
  return {
    async authenticate(request, scopeOrOptions) {
      const { scope, subjects } = callOptions(scopeOrOptions, options.resource);
      const required = typeof scope === 'string' ? scope.split(' ').filter(Boolean) : (scope ?? []);
      const accepted = (caller: Caller): AuthenticationResult => {
        if (subjects !== undefined && !subjects.includes(caller.subject.kind))
          throw subjectNotAccepted(realm, caller.subject.kind);
        return { ok: true, caller };
      };
      try {
        const token = bearerCredentials(request);
        const dpopToken = token === null ? dpopCredentials(request) : null;
        if (dpopToken !== null) return accepted(await verify(request, dpopToken, required, request));
        if (token === null) {
          throw credentialsRequired(realm, true, undefined, {
            scope: required,
            ...(options.resourceMetadata === undefined ? {} : { resourceMetadata: options.resourceMetadata }),
          });
        }
        return accepted(await verify(request, token, required));
      } catch (error) {
        if (error instanceof ProtocolError) return { ok: false, response: error.toResponse() };
        throw error;
      }
    },
  };
}

/**
 * The issuer's JWKS URL (`jwksUri`, else `{issuer}/oauth2/v1/keys`); throws `ConfigurationError`
 * naming the option it came from when it cannot be fetched under {@link HOST_CONFIGURED_URL_POLICY}.
 */
function jwksUrl(options: ResourceServerOptions, issuer: string): URL {
  const option = options.jwksUri === undefined ? 'issuer' : 'jwksUri';
  let url: URL | undefined;
  try {
    url = new URL(options.jwksUri ?? issuer + ENDPOINTS.jwks);
  } catch {}
  const refused = url === undefined ? 'it is not a URL' : refusedUrlReason(url, HOST_CONFIGURED_URL_POLICY);
  if (url === undefined || refused !== undefined)
    throw new ConfigurationError(
      `resourceServer: the key set URL ${JSON.stringify(url?.href ?? options.jwksUri ?? issuer)} cannot be fetched: ${refused}.`,
      { code: 'ERR_CONFIG_INVALID_OPTION', option },
    );
  return url;
}

/**
 * The origin DPoP proofs must name (`dpop.origin`, else the origin of `resource`); throws
 * `ConfigurationError` naming `dpop.origin` when it is malformed, or absent with a resource that
 * is no http(s) URL: a proof's `htu` is never checked against the host a request claims.
 */
function resourceOrigin(options: ResourceServerOptions): string {
  const given = options.dpop?.origin;
  if (given === undefined) {
    const origin = typeof options.resource === 'string' ? httpOrigin(options.resource) : undefined;
    if (origin === undefined)
      throw new ConfigurationError(
        `resourceServer: dpop.origin is required, as resource ${JSON.stringify(options.resource)} is no http(s) URL: DPoP proofs (RFC 9449 section 4.3) are checked against the resource's public origin, never the Host header of a request.`,
        { code: 'ERR_CONFIG_MISSING_OPTION', option: 'dpop.origin' },
      );
    return origin;
  }
  const url = typeof given === 'string' && httpOrigin(given) !== undefined ? new URL(given) : undefined;
  if (url === undefined || url.pathname !== '/' || url.search || url.hash || url.username || url.password)
    throw new ConfigurationError(
      `resourceServer: dpop.origin must be an http(s) origin (scheme, host and port, no path), e.g. "https://api.example.com"; got ${JSON.stringify(given)}.`,
      { code: 'ERR_CONFIG_INVALID_OPTION', option: 'dpop.origin' },
    );
  const origin = url.origin;
  return origin;
}

/**
 * The scope and subjects of a call: a scope alone (the resource server's own form, any subject),
 * or an instance's {@link AuthenticateOptions} (as adapters pass them), checked to make sense for
 * a resource server: a programming error throws `TypeError`, as an instance's `authenticate` does.
 */
function callOptions(
  given: string | readonly string[] | AuthenticateOptions | undefined,
  resource: string,
): { scope?: string | readonly string[]; subjects?: readonly string[] } {
  if (given === undefined || typeof given === 'string' || Array.isArray(given))
    return { scope: given as string | readonly string[] | undefined };
  const options = given as AuthenticateOptions;
  if (!Array.isArray(options.schemes) || !options.schemes.includes('bearer'))
    throw new UsageError(
      `resourceServer().authenticate: schemes must include 'bearer' (got ${JSON.stringify(options.schemes)}); a resource server apart from the instance cannot check sessions.`,
      'ERR_INVALID_ARGUMENT',
      'schemes',
    );
  if (options.resource !== undefined && options.resource !== resource)
    throw new UsageError(
      `resourceServer().authenticate: resource ${JSON.stringify(options.resource)} is not this resource server's (${JSON.stringify(resource)}); create one resourceServer() per resource.`,
      'ERR_INVALID_ARGUMENT',
      'resource',
    );
  return {
    ...(options.scope === undefined ? {} : { scope: options.scope }),
    subjects: options.subjects ?? ['user'],
  };
}

/**
 * Why an introspection answer does not let the token in, or `undefined`: not `active` (RFC 7662
 * §2.2: unknown, revoked, expired, or not for this caller), not an access token (a refresh
 * token's answer names its type), another issuer, another audience (RFC 8707: `aud` must name
 * this resource), past its `exp` or before its `nbf`. `exp` is checked here too because a kept
 * answer is reused until then.
 */
function introspectedRefusal(
  answer: IntrospectionAnswer,
  issuer: string,
  resource: string,
  now: number,
  toleranceSeconds: number,
): TokenRejection | undefined {
  if (answer.active !== true) return 'invalid';
  const type = answer.token_type;
  if (type !== undefined && (typeof type !== 'string' || !/^(bearer|dpop)$/i.test(type))) return 'invalid';
  if (answer.iss !== undefined && answer.iss !== issuer) return 'issuer';
  const audience = typeof answer.aud === 'string' ? [answer.aud] : answer.aud;
  if (!Array.isArray(audience) || !audience.includes(resource)) return 'audience';
  const seconds = now / 1000;
  if (typeof answer.exp !== 'number' || answer.exp <= seconds - toleranceSeconds) return 'expired';
  if (answer.nbf !== undefined && (typeof answer.nbf !== 'number' || answer.nbf > seconds + toleranceSeconds))
    return 'invalid';
  return undefined;
}

/** What jose's refusal says of the token, as far as the answer may say it (RFC 6750 §3.1). */
function rejectionOf(error: unknown): TokenRejection {
  if (error instanceof errors.JWTExpired) return 'expired';
  if (error instanceof errors.JWTClaimValidationFailed) {
    if (error.claim === 'iss') return 'issuer';
    if (error.claim === 'aud') return 'audience';
  }
  return 'invalid';
}

/**
 * Whether `token` is a JWT the issuer signed (its signature verifies with the issuer's keys, its
 * `iss` is the issuer, not expired): what an introspecting resource server asks before a call
 * (`introspection.signedTokensOnly`). The keys could not be fetched: 503, the token may be fine.
 */
async function signedByIssuer(
  token: string,
  keys: JWTVerifyGetKey,
  expect: { readonly algorithms: string[]; readonly issuer: string; readonly tolerance: number },
): Promise<boolean> {
  try {
    await jwtVerify(token, keys, {
      algorithms: expect.algorithms,
      issuer: expect.issuer,
      clockTolerance: expect.tolerance,
    });
    return true;
  } catch (error) {
    if (error instanceof errors.JWKSTimeout || !(error instanceof errors.JOSEError))
      throw oauthError('temporarily_unavailable', 'The signing keys could not be fetched.', {
        retryAfter: 1,
        cause: error,
      });
    return false;
  }
}
