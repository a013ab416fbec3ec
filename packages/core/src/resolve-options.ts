import type { Context } from './context.js';
import { ConfigurationError } from './errors.js';
import { clientAddressOf } from './http/client-address.js';
import type { GatehouseOptions } from './options.js';
import { guardStore } from './storage/guard.js';
import { memoryConsentStore } from './storage/memory/consents.js';
import { memoryGrantStore } from './storage/memory/grants.js';
import { memoryRateLimitStore } from './storage/memory/rate-limits.js';
import { memorySessionStore } from './storage/memory/sessions.js';
import type { GatehouseStorage } from './storage/types.js';
import type { KeySet } from './tokens/keys.js';
import { checkKeys } from './tokens/keys.js';
import { webRandomBytes } from './tokens/secrets.js';
import { VerifiedTokenCache } from './tokens/verified-token-cache.js';

const LOOPBACK = new Set(['localhost', '127.0.0.1', '[::1]']);

function lifetime(name: string, value: number | undefined, fallback: number, max = 366 * 86_400): number {
  const seconds = value ?? fallback;
  if (!Number.isInteger(seconds) || seconds < 1 || seconds > max) {
    throw new ConfigurationError(
      `${name}: expected a whole number of seconds between 1 and ${max}, got ${String(value)}.`,
    );
  }
  return seconds;
}

function count(name: string, value: number | undefined, fallback: number): number {
  const n = value ?? fallback;
  if (!Number.isInteger(n) || n < 1)
    throw new ConfigurationError(`${name}: expected a positive whole number, got ${String(value)}.`);
  return n;
}

/** Parses and checks the issuer (RFC 8414 §2: https, no query or fragment). */
export function parseIssuer(issuer: string, allowInsecure: boolean): URL {
  let url: URL;
  try {
    url = new URL(issuer);
  } catch {
    throw new ConfigurationError(`issuer: "${issuer}" is not an absolute URL.`);
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:')
    throw new ConfigurationError('issuer: must be an http(s) URL.');
  if (url.search || url.hash || issuer.includes('?') || issuer.includes('#')) {
    throw new ConfigurationError('issuer: must not have a query or fragment (RFC 8414 §2).');
  }
  if (url.protocol === 'http:' && !LOOPBACK.has(url.hostname) && !allowInsecure) {
    throw new ConfigurationError(
      `issuer: "${issuer}" is not https. Use https, a loopback host, or set allowInsecureIssuer for a non-production setup.`,
    );
  }
  return url;
}

/** Everything of the context that does not need the imported keys; validated synchronously. */
export type ResolvedOptions = Omit<Context, 'keys'>;

/** Validates options and fills in defaults; throws {@link ConfigurationError} with a precise message. */
export function resolveOptions(options: GatehouseOptions): ResolvedOptions {
  if (!options || typeof options !== 'object')
    throw new ConfigurationError('createGatehouse: options are required.');
  const url = parseIssuer(options.issuer, options.allowInsecureIssuer ?? false);
  const basePath = url.pathname.replace(/\/+$/, '');
  const issuer = url.origin + basePath;
  const algorithm = options.algorithm ?? 'ES256';
  if (algorithm !== 'ES256' && algorithm !== 'EdDSA')
    throw new ConfigurationError(`algorithm: "${algorithm}" is not supported (ES256 or EdDSA).`);
  checkKeys(options.keys, algorithm);
  if (!options.clients || typeof options.clients.findClient !== 'function') {
    throw new ConfigurationError(
      'clients: a ClientStore (with findClient) is required, e.g. memoryClientStore([...]).',
    );
  }
  if (
    !options.users ||
    typeof options.users.verifyPassword !== 'function' ||
    typeof options.users.findUser !== 'function'
  ) {
    throw new ConfigurationError('users: a UserStore (with verifyPassword and findUser) is required.');
  }
  const timeoutMs = count('storageTimeoutMs', options.storageTimeoutMs, 5000);
  const given = options.storage ?? {};
  const storage: GatehouseStorage = {
    grants: guardStore(given.grants ?? memoryGrantStore(), timeoutMs),
    sessions: guardStore(given.sessions ?? memorySessionStore(), timeoutMs),
    consents: guardStore(given.consents ?? memoryConsentStore(), timeoutMs),
    rateLimits: guardStore(given.rateLimits ?? memoryRateLimitStore(), timeoutMs),
  };
  for (const origin of options.cors?.allowedOrigins ?? []) {
    let parsed: URL | undefined;
    try {
      parsed = new URL(origin);
    } catch {}
    if (!parsed || parsed.origin !== origin) {
      throw new ConfigurationError(
        `cors.allowedOrigins: "${origin}" is not an origin (scheme://host[:port], no path or slash).`,
      );
    }
  }
  const scopes = options.scopes ? new Set(options.scopes) : undefined;
  const defaultScope = options.defaultScope ?? '';
  for (const scope of defaultScope.split(' ').filter(Boolean)) {
    if (scopes && !scopes.has(scope))
      throw new ConfigurationError(`defaultScope: "${scope}" is not in scopes.`);
  }
  const requirePkce = options.requirePkce ?? 'public';
  if (requirePkce !== 'public' && requirePkce !== 'all')
    throw new ConfigurationError('requirePkce: expected "public" or "all".');
  const logger = options.logger ?? console;
  const onEvent = options.onEvent;
  const cookieName = options.session?.cookieName ?? 'gatehouse_session';
  if (!/^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/.test(cookieName)) {
    throw new ConfigurationError(
      `session.cookieName: "${cookieName}" is not a valid cookie name (RFC 6265 §4.1.1).`,
    );
  }

  return {
    issuer,
    issuerOrigin: url.origin,
    basePath,
    secure: url.protocol === 'https:',
    audience: options.audience ?? `${issuer}/api/v1`,
    // Host stores too: a failing or hanging user/client lookup is a 503, never a 500 or a stuck request.
    clients: guardStore(options.clients, timeoutMs),
    users: guardStore(options.users, timeoutMs),
    storage,
    scopes,
    defaultScope,
    accessTokenTtl: lifetime('accessTokenTtl', options.accessTokenTtl, 3600, 86_400),
    refreshTokenTtl: lifetime('refreshTokenTtl', options.refreshTokenTtl, 30 * 86_400),
    authorizationCodeTtl: lifetime('authorizationCodeTtl', options.authorizationCodeTtl, 60, 600),
    rotateRefreshTokens: options.rotateRefreshTokens ?? true,
    requirePkce,
    authApi: {
      enabled: options.authApi?.enabled ?? true,
      tokenTtl: lifetime('authApi.tokenTtl', options.authApi?.tokenTtl, 86_400, 30 * 86_400),
    },
    session: {
      cookieName,
      idleTimeout: lifetime('session.idleTimeout', options.session?.idleTimeout, 1800),
      absoluteTimeout: lifetime('session.absoluteTimeout', options.session?.absoluteTimeout, 43_200),
    },
    rateLimit: {
      maxFailuresPerUsername: count(
        'rateLimit.maxFailuresPerUsername',
        options.rateLimit?.maxFailuresPerUsername,
        5,
      ),
      maxFailuresPerAddress: count(
        'rateLimit.maxFailuresPerAddress',
        options.rateLimit?.maxFailuresPerAddress,
        50,
      ),
      windowSeconds: lifetime('rateLimit.windowSeconds', options.rateLimit?.windowSeconds, 900),
      clientAddress: options.rateLimit?.clientAddress ?? clientAddressOf,
    },
    cors: {
      allowedOrigins: options.cors?.allowedOrigins ?? [],
      maxAgeSeconds: lifetime('cors.maxAgeSeconds', options.cors?.maxAgeSeconds, 600, 86_400),
    },
    ui: options.ui ?? {},
    maxBodyBytes: count('maxBodyBytes', options.maxBodyBytes, 65_536),
    clockToleranceSeconds: options.clockToleranceSeconds ?? 5,
    now: options.now ?? Date.now,
    randomBytes: options.randomBytes ?? webRandomBytes,
    emit: (event) => {
      try {
        onEvent?.(event);
      } catch (error) {
        logger.error('gatehouse: onEvent threw', error);
      }
    },
    logger,
    realm: issuer,
    verifiedTokens: new VerifiedTokenCache(),
  };
}

/** Joins the resolved options and the imported keys into the handlers' context. */
export function toContext(resolved: ResolvedOptions, keys: KeySet): Context {
  return { ...resolved, keys };
}
