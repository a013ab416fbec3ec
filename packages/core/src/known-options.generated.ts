// Generated from src/options.ts by scripts/options-reference.mjs; do not edit.

/** The option names `createGatehouse` accepts: `true` for a value, a nested tree for a group. */
export const KNOWN_OPTIONS = {
  "issuer": true,
  "allowInsecureIssuer": true,
  "keys": true,
  "signers": true,
  "keyRotation": {
    "keyEncryptionKey": true,
    "previousKeyEncryptionKeys": true,
    "rotateEvery": true,
    "leadTime": true,
    "retainFor": true,
    "algorithms": true,
    "refreshInterval": true
  },
  "algorithm": true,
  "allowEphemeralKeys": true,
  "clients": true,
  "clientJwks": {
    "fetch": true,
    "allowLoopback": true,
    "timeoutMs": true,
    "maxBytes": true,
    "cacheSeconds": true,
    "maxConcurrentFetches": true,
    "maxConcurrentFetchesPerOrigin": true,
    "maxFetchesPerAddress": true,
    "fetchWindowSeconds": true,
    "maxCacheBytes": true
  },
  "users": true,
  "storage": true,
  "instanceId": true,
  "storageTimeoutMs": true,
  "pushedRevocations": true,
  "scopes": true,
  "defaultScope": true,
  "audience": true,
  "resources": true,
  "accessTokenTtl": true,
  "refreshTokenTtl": true,
  "authorizationCodeTtl": true,
  "rotateRefreshTokens": true,
  "requirePkce": true,
  "securityProfile": true,
  "pushedAuthorizationRequests": {
    "required": true,
    "requestUriTtl": true,
    "maxPublicPushesPerAddress": true
  },
  "dpop": {
    "signingAlgorithms": true,
    "proofLifetime": true,
    "requireNonce": true,
    "nonceLifetime": true,
    "nonceSecret": true
  },
  "authorizationDetails": {
    "types": true,
    "maxDetails": true,
    "maxBytes": true
  },
  "authApi": {
    "enabled": true,
    "tokenTtl": true,
    "scope": true
  },
  "session": {
    "cookieName": true,
    "cookiePath": true,
    "idleTimeout": true,
    "absoluteTimeout": true
  },
  "rateLimit": {
    "maxFailuresPerUsername": true,
    "maxFailuresPerAddress": true,
    "windowSeconds": true,
    "clientAddress": true
  },
  "passwordChecks": {
    "maxConcurrent": true,
    "maxQueued": true
  },
  "cors": {
    "allowedOrigins": true,
    "maxAgeSeconds": true
  },
  "ui": {
    "productName": true,
    "logoUrl": true,
    "usernameLabel": true,
    "scopeDescriptions": true,
    "texts": {
      "usernameLabel": true,
      "passwordLabel": true,
      "signInTitle": true,
      "signInButton": true,
      "consentTitle": true,
      "allowButton": true,
      "denyButton": true,
      "errorTitle": true,
      "continueTo": true,
      "wantsToAct": true,
      "asksFor": true,
      "asksForAccount": true,
      "resourcesAt": true,
      "detailsAsked": true,
      "sentBackTo": true,
      "signedInAs": true,
      "loginInvalidCredentials": true,
      "loginMissingCredentials": true,
      "loginRateLimited": true,
      "loginBusy": true,
      "loginFormExpired": true,
      "selfRegistered": true,
      "selfRegisteredFrom": true,
      "deviceCodeTitle": true,
      "deviceCodeIntro": true,
      "deviceCodeLabel": true,
      "deviceCodeButton": true,
      "deviceCodeInvalid": true,
      "deviceCodeMalformed": true,
      "deviceConfirmTitle": true,
      "deviceWantsToAct": true,
      "deviceCompareCode": true,
      "deviceDenyHint": true,
      "deviceChooseDecision": true,
      "deviceApprovedTitle": true,
      "deviceApprovedText": true,
      "deviceDeniedTitle": true,
      "deviceDeniedText": true,
      "approvalsTitle": true,
      "approvalsIntro": true,
      "approvalsEmpty": true,
      "approvalsBindingMessage": true,
      "approvalsAllowed": true,
      "approvalsDenied": true,
      "approvalsGone": true
    },
    "messages": true,
    "contentSecurityPolicy": {
      "styles": true,
      "fonts": true,
      "scripts": true,
      "images": true,
      "connect": true
    },
    "renderLogin": true,
    "renderConsent": true,
    "renderLogout": true,
    "renderEndSession": true,
    "renderError": true
  },
  "interactions": {
    "url": true,
    "currentUser": true,
    "ttl": true,
    "maxPerNetwork": true
  },
  "claims": true,
  "dynamicRegistration": {
    "allowConfidential": true,
    "initialAccessToken": true,
    "unusedTtl": true,
    "maxPerAddress": true,
    "windowSeconds": true,
    "maxClients": true
  },
  "deviceAuthorization": {
    "codeLifetimeSeconds": true,
    "pollIntervalSeconds": true,
    "maxLookupsPerAddress": true,
    "maxFailedLookups": true,
    "maxPublicRequestsPerAddress": true
  },
  "ciba": {
    "notify": true,
    "resolveLoginHint": true,
    "deliveryModes": true,
    "requestLifetimeSeconds": true,
    "maxRequestLifetimeSeconds": true,
    "pollIntervalSeconds": true,
    "maxRequestsPerClient": true,
    "maxPendingPerUser": true,
    "maxNotificationsPerUser": true,
    "notifyTimeoutMs": true,
    "ping": {
      "fetch": true,
      "allowLoopback": true,
      "timeoutMs": true,
      "attempts": true
    }
  },
  "clientMetadataDocuments": {
    "fetch": true,
    "allowLoopback": true,
    "maxBytes": true,
    "timeoutMs": true,
    "minCacheSeconds": true,
    "maxCacheSeconds": true,
    "maxConcurrentFetches": true,
    "maxConcurrentFetchesPerOrigin": true,
    "maxFetchesPerAddress": true,
    "fetchWindowSeconds": true,
    "maxCacheBytes": true
  },
  "tokenExchange": {
    "policy": true,
    "idJagAudiences": true,
    "idJagTtl": true
  },
  "extensionGrants": true,
  "consent": {
    "remember": true
  },
  "trustedIssuers": true,
  "maxBodyBytes": true,
  "clockToleranceSeconds": true,
  "now": true,
  "randomBytes": true,
  "onEvent": true,
  "audit": true,
  "telemetry": {
    "api": true
  },
  "logger": true,
  "debug": true
} as const;
