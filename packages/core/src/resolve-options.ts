import { connectedAppsFeature } from './account/feature.js';
import { adminFeature } from './admin/feature.js';
import { adminSettings } from './admin/settings.js';
import { auditSinks, eventEmitter } from './audit/emitter.js';
import { authApiSettings } from './auth-api/settings.js';
import { operationsConsoleFeature } from './console/feature.js';
import type { Context } from './context.js';
import { dpopFeature } from './dpop/feature.js';
import { dpopSettings } from './dpop/settings.js';
import { ConfigurationError } from './errors.js';
import {
  type AssembledFeatures,
  assembleFeatures,
  type Feature,
  type FeatureShared,
  type InstanceSettings,
  type ResolvedOptions,
  type SharedResources,
} from './feature.js';
import { clientAddressLookup } from './http/client-address.js';
import { corsSettings } from './http/cors.js';
import { instanceClients } from './instance-clients.js';
import { hostStoreGuard, instanceStorage } from './instance-storage.js';
import { issuerOf, parseIssuer } from './issuer.js';
import { instanceLogger } from './logger.js';
import { authorizationDetailsFeature } from './oauth2/authorization-details/feature.js';
import { authorizationFlow } from './oauth2/authorize/flow.js';
import { cibaFeature } from './oauth2/ciba/feature.js';
import { deviceAuthorizationFeature } from './oauth2/device/feature.js';
import { confidentialClientsOnly, fapi2Profile } from './oauth2/fapi/profile.js';
import { extensionGrantsFeature } from './oauth2/grants/extension-grants.js';
import { coreGrantsFeature, jwtBearerFeature, tokenExchangeFeature } from './oauth2/grants/feature.js';
import { pushedAuthorizationRequestsFeature } from './oauth2/par/feature.js';
import { clientMetadataDocumentsFeature, dynamicRegistrationFeature } from './oauth2/registration/feature.js';
import { requestObjectsFeature } from './oauth2/request-objects/feature.js';
import { tokenExchangeSettings } from './oauth2/token-exchange/settings.js';
import { accessTokenLifetime, scopePolicy, tokenPolicy } from './oauth2/token-policy.js';
import { backchannelLogoutFeature } from './oidc/backchannel-logout/feature.js';
import { backchannelLogoutSettings } from './oidc/backchannel-logout/settings.js';
import { count } from './option-values.js';
import type { GatehouseOptions } from './options.js';
import { requestLimits } from './passwords/settings.js';
import { checkedUserStore } from './records/checked-user-store.js';
import { checkHostStores } from './records/host-stores.js';
import { RecordProblems } from './records/record-problems.js';
import { SessionLifecycle } from './session/lifecycle.js';
import { sessionSettings } from './session/settings.js';
import { telemetrySettings } from './telemetry/settings.js';
import { signingAlgorithm } from './tokens/key-settings.js';
import { keyRotationSettings } from './tokens/rotation/settings.js';
import { PendingSigningKeys } from './tokens/rotation/signing-keys.js';
import { webRandomBytes } from './tokens/secrets.js';
import { resolveUi } from './ui/texts.js';
import { refuseUnknownOptions } from './unknown-options.js';

/*
 * The composition root: it checks the options into the instance's core (`Context`, shared with
 * every feature) and the features' settings, each concern by its own module, and lists the
 * features (`FEATURES`), whose parts it assembles once.
 */

/** Validates options and fills in defaults; throws {@link ConfigurationError} with a precise message. */
export function resolveOptions(options: GatehouseOptions, shared: SharedResources = {}): ResolvedOptions {
  refuseUnknownOptions(options);
  const onlyConfidential = confidentialClientsOnly(options);
  const url = parseIssuer(options.issuer, options.allowInsecureIssuer ?? false);
  const { issuer, site } = issuerOf(url, options.issuer);
  const algorithm = signingAlgorithm(options);
  checkHostStores(options);
  const timeoutMs = count('storageTimeoutMs', options.storageTimeoutMs, 5000);
  const telemetry = telemetrySettings(options.telemetry, issuer);
  const { storage, revocationMirror } = instanceStorage(options, issuer, timeoutMs, telemetry);
  const hostStore = hostStoreGuard(timeoutMs, telemetry);
  const cors = corsSettings(options.cors);
  const { scopes } = scopePolicy(options);
  const fapi2 = fapi2Profile(options);
  const authApi = authApiSettings(options, scopes, fapi2);
  const tokenExchange = tokenExchangeSettings(options.tokenExchange);
  // What a retired key signed: access tokens of both families, ID tokens (as long as access
  // tokens, oidc/id-token.ts) and ID-JAGs.
  const keyRotation = keyRotationSettings(options.keyRotation, algorithm, [
    accessTokenLifetime(options),
    authApi.enabled ? authApi.tokenTtl : 0,
    tokenExchange?.idJagTtl ?? 0,
  ]);
  const logger = instanceLogger(options);
  const session = sessionSettings(options.session, site.basePath);
  const problems = new RecordProblems(logger);
  const now = options.now ?? Date.now;
  const clientAddress = clientAddressLookup(options.rateLimit?.clientAddress);
  const admin = adminSettings(options.admin, scopes);
  // The admin API's recorder hears every event, whatever the host's own sinks are.
  const audit = auditSinks(options.audit, admin?.recorder);
  const { emit, emitFor } = eventEmitter({
    onEvent: options.onEvent,
    audit,
    instance: issuer,
    now,
    clientAddress,
    logger,
  });
  const { clients, metadataDocuments } = instanceClients(options, {
    host: hostStore(options.clients, 'clients'),
    registry: storage.clients,
    now,
    problems,
    clientAddress,
    allowedOrigins: cors.allowedOrigins,
    scopes,
    logger,
    issuer,
    adminScope: admin?.scope,
  });
  const tokens = tokenPolicy(options, {
    issuer,
    fapi2,
    verified: shared.verifiedTokens,
    revocationMirror,
    otherLifetimes: [authApi.tokenTtl, session.absoluteTimeout],
  });
  const randomBytes = options.randomBytes ?? webRandomBytes;
  const clock = { now, toleranceSeconds: options.clockToleranceSeconds ?? 5 };
  const core: Omit<Context, 'keys'> = {
    issuer,
    site,
    clock,
    randomBytes,
    emit,
    logger,
    storage,
    clients,
    users: checkedUserStore(hostStore(options.users, 'users'), problems),
    tokens,
    limits: requestLimits(options, clientAddress),
    profile: { securityProfile: fapi2 ? 'fapi2' : undefined, confidentialClientsOnly: onlyConfidential },
    ui: resolveUi(options.ui, issuer),
    session,
  };
  const settings: InstanceSettings = {
    ...authorizationFlow(options, url, site.basePath, session.cookieName, fapi2),
    authApi,
    cors,
    emitFor,
    telemetry,
    clientMetadataDocuments: metadataDocuments,
    tokenExchange,
    keyRotation,
    storedKeys: new PendingSigningKeys(),
    admin,
    dpop: { issuer, clock, settings: dpopSettings(options.dpop, randomBytes, fapi2), storage },
    backchannelLogout: backchannelLogoutSettings(options.backchannelLogout),
    sessions: new SessionLifecycle(),
  };
  const instance = { ...core, ...settings };
  return { ...instance, core, features: assembleFeatures(FEATURES, options, instance) };
}

/**
 * The features of an instance, in the order their grant types and discovery members are listed.
 * Adding a feature is one line here (`feature.ts`).
 */
const FEATURES: readonly Feature[] = [
  coreGrantsFeature,
  deviceAuthorizationFeature,
  cibaFeature,
  pushedAuthorizationRequestsFeature,
  authorizationDetailsFeature,
  requestObjectsFeature,
  dynamicRegistrationFeature,
  clientMetadataDocumentsFeature,
  dpopFeature,
  tokenExchangeFeature,
  jwtBearerFeature,
  extensionGrantsFeature,
  adminFeature,
  backchannelLogoutFeature,
  connectedAppsFeature,
  operationsConsoleFeature,
];

/**
 * The features of an instance whose options turn every feature on that can add routes: what
 * `createGatehouseHost`'s router must know of every instance (its handlers are never called).
 */
export const everyFeature = (): AssembledFeatures =>
  assembleFeatures(
    FEATURES,
    { dynamicRegistration: {}, admin: { authorize: () => false }, ciba: {} } as unknown as GatehouseOptions,
    {
      tokens: { trustedIssuers: new Map() },
      admin: { scope: 'gatehouse:admin' },
    } as unknown as FeatureShared,
  );
