// Generated from src/options.ts by scripts/options-reference.mjs; do not edit.

/** The option names `createGatehouse` accepts: `true` for a value, a nested tree for a group. */
export const KNOWN_OPTIONS = {
  "issuer": true,
  "allowInsecureIssuer": true,
  "keys": true,
  "algorithm": true,
  "clients": true,
  "clientJwks": {
    "timeoutMs": true,
    "maxBytes": true,
    "cacheSeconds": true,
    "allowPrivateNetwork": true,
    "fetch": true
  },
  "users": true,
  "storage": true,
  "instanceId": true,
  "storageTimeoutMs": true,
  "pushedRevocations": true,
  "scopes": true,
  "defaultScope": true,
  "audience": true,
  "accessTokenTtl": true,
  "refreshTokenTtl": true,
  "authorizationCodeTtl": true,
  "rotateRefreshTokens": true,
  "requirePkce": true,
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
    "renderLogin": true,
    "renderConsent": true,
    "renderLogout": true,
    "renderEndSession": true,
    "renderError": true
  },
  "maxBodyBytes": true,
  "clockToleranceSeconds": true,
  "now": true,
  "randomBytes": true,
  "onEvent": true,
  "logger": true
} as const;
