import type { AdminSettings } from './admin/settings.js';
import type { AuthApiSettings } from './auth-api/settings.js';
import type { Context } from './context.js';
import type { DpopChecks, DpopProof } from './dpop/proof.js';
import { ConfigurationError } from './errors.js';
import type { CorsSettings } from './http/cors.js';
import type { DispatchSettings } from './http/dispatch.js';
import type { Params } from './http/form.js';
import type { Answer } from './http/reply.js';
import type { Route } from './http/router.js';
import type { AuthorizationDetailsService } from './oauth2/authorization-details/settings.js';
import type { CibaApi } from './oauth2/ciba/api.js';
import type { AuthenticatedClient } from './oauth2/client-auth/authenticate-client.js';
import type { InteractionSettings } from './oauth2/interaction/settings.js';
import type { MetadataDocumentSettings } from './oauth2/registration/settings.js';
import type { RequestObjectSettings } from './oauth2/request-objects/settings.js';
import type { TokenExchangeSettings } from './oauth2/token-exchange/settings.js';
import type { BackchannelLogoutSettings } from './oidc/backchannel-logout/settings.js';
import type { ConsentOptions, GatehouseOptions } from './options.js';
import type { SessionLifecycle, SessionObserver } from './session/lifecycle.js';
import type { KeyRotationSettings } from './tokens/rotation/settings.js';
import type { PendingSigningKeys } from './tokens/rotation/signing-keys.js';
import type { VerifiedTokenCache } from './tokens/verified-token-cache.js';

/*
 * Feature modules (issue 42). A feature is a folder that owns its options (a key of
 * `GatehouseOptions`), their validation into settings, and what it adds to an instance: routes,
 * grant types of the token endpoint, and members of the discovery documents. Its handlers close
 * over the settings they were built with, so the shared context carries none of them. The
 * composition root (`resolve-options.ts`, `FEATURES`) only lists features; the token endpoint's
 * grant table and the discovery document are assembled from them.
 */

/**
 * One grant type's half of a token request (RFC 6749 §4), after client authentication and the
 * DPoP proof: the client is registered for the grant type (the token endpoint checked it).
 */
export type GrantHandler = (
  ctx: Context,
  params: Params,
  client: AuthenticatedClient,
  dpop: DpopProof | undefined,
) => Promise<Answer>;

/**
 * The features' settings, resolved and validated once by `createGatehouse`: the routes, grants and
 * services of the features are built with them (and close over them); no request carries them.
 */
export interface InstanceSettings extends DispatchSettings {
  readonly authApi: AuthApiSettings;
  /** The preflight cache lifetime (`cors.maxAgeSeconds`); allowed origins are the clients'. */
  readonly cors: CorsSettings;
  /** Sign-in and consent handed to the host (`interactions` options, resolved). */
  readonly interactions: InteractionSettings;
  /** Client ID metadata documents, when `clientMetadataDocuments` is on. */
  readonly clientMetadataDocuments: MetadataDocumentSettings | undefined;
  /** Stored, rotated signing keys (`keyRotation`), when on. */
  readonly keyRotation: KeyRotationSettings | undefined;
  /** The stored signing keys themselves, once imported (after the features are set up). */
  readonly storedKeys: PendingSigningKeys;
  /** The admin API (`admin`), when on: its settings and the recorder the instance's events feed. */
  readonly admin: AdminSettings | undefined;
  /** Token exchange (RFC 8693), when `tokenExchange` is on. */
  readonly tokenExchange: TokenExchangeSettings | undefined;
  /**
   * Every client must push its authorization requests (RFC 9126 §5 and §6,
   * `pushedAuthorizationRequests.required`): the authorization endpoint (and the interactions that
   * resume it) enforces it; the pushed authorization request feature lists it in discovery.
   */
  readonly requirePushedRequests: boolean;
  /** RFC 9449 DPoP (`dpop`): its settings, with the clock and replay store its checks use. */
  readonly dpop: DpopChecks;
  /** The host's consent memory policy (`consent.remember`), if any. */
  readonly rememberConsent: ConsentOptions['remember'];
  /**
   * OpenID Connect Back-Channel Logout 1.0 (`backchannelLogout`), when on: dynamic registration
   * accepts `backchannel_logout_uri` by its rules.
   */
  readonly backchannelLogout: BackchannelLogoutSettings | undefined;
  /**
   * The instance's session lifecycle: every code path that ends a session reports it here, the
   * grants report the clients that take part in sessions, and the features observe it
   * (`FeatureParts.sessions`).
   */
  readonly sessions: SessionLifecycle;
  /**
   * Rich authorization requests (RFC 9396, `authorizationDetails`): the service the authorization
   * flow, the pushed authorization request endpoint and the grants check details with; absent
   * when the feature is off.
   */
  readonly authorizationDetails: AuthorizationDetailsService | undefined;
  /**
   * Signed request objects (RFC 9101, `requestObjects`): what the authorization flow and the pushed
   * authorization request endpoint verify `request` with.
   */
  readonly requestObjects: RequestObjectSettings;
}

/**
 * What every feature's setup may use: the instance's core (without the keys, imported later) and
 * the instance settings (`InstanceSettings`) that more than one feature reads.
 */
export type FeatureShared = Omit<Context, 'keys'> & InstanceSettings;

/** What one feature adds to an instance. Every member is optional. */
export interface FeatureParts {
  /** Routes below the instance path (and their origin-root aliases). */
  readonly routes?: readonly Route[];
  /** Grant types the token endpoint hands to this feature, by `grant_type` value. */
  readonly grants?: Readonly<Record<string, GrantHandler>>;
  /**
   * Members of the authorization server metadata (RFC 8414 §2) and the OpenID discovery document,
   * given the absolute URL of a path below the issuer.
   */
  readonly metadata?: (endpoint: (path: string) => string) => Readonly<Record<string, unknown>>;
  /** What the feature does when clients take part in sessions and sessions end. */
  readonly sessions?: SessionObserver;
  /**
   * Receives the instance's own request handler once the instance exists (it never rejects: a
   * refusal is its answer): for a feature that calls the instance's other routes in-process, as any
   * client would, through their handlers and checks (the operations console calls the token
   * endpoint and the admin API).
   */
  readonly bind?: (answer: InstanceAnswer) => void;
  /** `gatehouse.ciba` (backchannel authentication), on the instance's ready context. */
  readonly ciba?: (ctx: Context) => CibaApi;
}

/** The instance's own handler: any request in, its answer out (never rejects). */
export type InstanceAnswer = (request: Request) => Promise<Answer>;

/** A feature: its name, and how it turns the instance's options into its parts. */
export interface Feature {
  /** A short name, for errors (`device`, `extension-grants`, …). */
  readonly name: string;
  /**
   * Validates the feature's own options (throwing `ConfigurationError` naming the option path) and
   * builds its parts. `shared` is what every feature may use: the instance's resolved options
   * without the features' parts.
   */
  setup(options: GatehouseOptions, shared: FeatureShared): FeatureParts;
}

/**
 * The features' parts, assembled: what the router, the token endpoint and discovery are built
 * with (they close over it; the request context carries none of it).
 */
export interface AssembledFeatures {
  readonly routes: readonly Route[];
  /** Every grant type the token endpoint serves, in the order the features list them. */
  readonly grants: ReadonlyMap<string, GrantHandler>;
  /** What the features add to the discovery documents. */
  readonly discovery: DiscoveryContributions;
  /** Hands the instance's own handler to the features that call it (`FeatureParts.bind`). */
  readonly bind: (answer: InstanceAnswer) => void;
  /** `gatehouse.ciba`, when a feature offers it (the `ciba` option). */
  readonly ciba?: (ctx: Context) => CibaApi;
}

/** The features' part of the authorization server metadata (RFC 8414) and the OpenID discovery document. */
export interface DiscoveryContributions {
  /** `grant_types_supported`: every grant type the token endpoint serves. */
  readonly grantTypes: readonly string[];
  /** The features' members, merged in order, given the absolute URL of a path below the issuer. */
  readonly members: (endpoint: (path: string) => string) => Readonly<Record<string, unknown>>;
}

/**
 * Sets up `features` in order and assembles their parts. Two features serving one grant type is
 * a `ConfigurationError` naming both (an extension grant may not replace one of Gatehouse's).
 */
export function assembleFeatures(
  features: readonly Feature[],
  options: GatehouseOptions,
  shared: FeatureShared,
): AssembledFeatures {
  const routes: Route[] = [];
  const grants = new Map<string, GrantHandler>();
  const owners = new Map<string, string>();
  const metadata: NonNullable<FeatureParts['metadata']>[] = [];
  const binds: NonNullable<FeatureParts['bind']>[] = [];
  let ciba: FeatureParts['ciba'];
  for (const feature of features) {
    const parts = feature.setup(options, shared);
    routes.push(...(parts.routes ?? []));
    for (const [type, grant] of Object.entries(parts.grants ?? {})) {
      const owner = owners.get(type);
      if (owner !== undefined)
        throw new ConfigurationError(
          `grant type ${JSON.stringify(type)} is served by both ${owner} and ${feature.name}.`,
          { code: 'ERR_CONFIG_CONFLICTING_OPTIONS', option: 'extensionGrants' },
        );
      owners.set(type, feature.name);
      grants.set(type, grant);
    }
    if (parts.metadata) metadata.push(parts.metadata);
    if (parts.sessions) shared.sessions.observe(parts.sessions);
    if (parts.bind) binds.push(parts.bind);
    ciba ??= parts.ciba;
  }
  return {
    routes,
    grants,
    ...(ciba === undefined ? {} : { ciba }),
    discovery: {
      grantTypes: [...grants.keys()],
      members: (endpoint) => Object.assign({}, ...metadata.map((members) => members(endpoint))),
    },
    bind: (answer) => {
      for (const bind of binds) bind(answer);
    },
  };
}

/** Everything of the context that does not need the imported keys; validated synchronously. */
export type ResolvedOptions = Omit<Context, 'keys'> &
  InstanceSettings & {
    /** What the instance's features add: routes, grant types, discovery members (built with them). */
    readonly features: AssembledFeatures;
    /** The core alone, for the context (`toContext`). */
    readonly core: Omit<Context, 'keys'>;
  };

/**
 * What a `createGatehouseHost` hands every instance it creates, beyond the options: memory whose
 * bound holds for all of them together rather than for each.
 */
export interface SharedResources {
  /** A cache of the host's one bounded table ({@link VerifiedTokenCache.share}). */
  readonly verifiedTokens?: VerifiedTokenCache;
}
