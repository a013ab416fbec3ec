import { decodeJwt, type JWTPayload, type JWTVerifyGetKey } from 'jose';
import type { Context, TrustedJwtVerifying } from '../context.js';
import { ConfigurationError } from '../errors.js';
import type { TrustedIssuerOptions } from '../options.js';
import { inlineKeySet } from './client-auth/client-jwks.js';
import { type AssertionExpectations, MAX_ASSERTION_LENGTH, verifyAssertion } from './jwt-assertion.js';
import type { TrustedIssuer } from './trusted-issuer.js';

export type { TrustedIssuer } from './trusted-issuer.js';

/** The `typ` values a trusted issuer's exchanged JWTs may carry by default: untyped, ID tokens, RFC 9068 access tokens. */
const DEFAULT_EXCHANGE_TYPS = ['jwt', 'at+jwt'];

/**
 * Explicit types of JWTs that speak for no subject to exchange (RFC 8725 §3.11: a JWT of one kind
 * must not pass for another): an ID-JAG is a one-time grant (its `jti` is spent by the JWT bearer
 * grant, draft-ietf-oauth-identity-assertion-authz-grant §5.1), a logout token (OpenID Connect
 * Back-Channel Logout §2.4), a security event token (RFC 8417 §2.3) and a DPoP proof (RFC 9449
 * §4.2) are messages. `exchangeTyps` cannot list them.
 */
const NON_SUBJECT_TYPS: ReadonlySet<string> = new Set([
  'oauth-id-jag+jwt',
  'logout+jwt',
  'secevent+jwt',
  'dpop+jwt',
]);

/** A `typ` as compared (RFC 7515 §4.1.9: case-insensitive, `application/` may be left out). */
export function normalizedTyp(typ: string): string {
  const lower = typ.toLowerCase();
  return lower.startsWith('application/') ? lower.slice('application/'.length) : lower;
}

/** Most trusted issuers per instance: each is looked up by `iss`, but the list is configuration. */
const MAX_TRUSTED_ISSUERS = 100;

/** Validates the `trustedIssuers` option; throws {@link ConfigurationError} naming the entry. */
export function resolveTrustedIssuers(
  given: readonly TrustedIssuerOptions[] | undefined,
  ownIssuer: string,
): ReadonlyMap<string, TrustedIssuer> {
  const resolved = new Map<string, TrustedIssuer>();
  if (given === undefined) return resolved;
  if (!Array.isArray(given))
    throw new ConfigurationError('trustedIssuers: expected an array.', { option: 'trustedIssuers' });
  if (given.length > MAX_TRUSTED_ISSUERS)
    throw new ConfigurationError(`trustedIssuers: at most ${MAX_TRUSTED_ISSUERS} issuers.`, {
      option: 'trustedIssuers',
    });
  given.forEach((entry, index) => {
    const at = `trustedIssuers[${index}]`;
    if (!entry || typeof entry.issuer !== 'string' || entry.issuer === '')
      throw new ConfigurationError(`${at}.issuer: expected the issuer's identifier (its tokens' iss).`, {
        code: 'ERR_CONFIG_MISSING_OPTION',
        option: `${at}.issuer`,
      });
    if (entry.issuer === ownIssuer)
      throw new ConfigurationError(`${at}.issuer: is this instance's own issuer, which is always trusted.`, {
        code: 'ERR_CONFIG_CONFLICTING_OPTIONS',
        option: `${at}.issuer`,
      });
    if (resolved.has(entry.issuer))
      throw new ConfigurationError(`${at}.issuer: "${entry.issuer}" is listed twice.`, {
        code: 'ERR_CONFIG_CONFLICTING_OPTIONS',
        option: `${at}.issuer`,
      });
    if ((entry.jwks === undefined) === (entry.jwksUri === undefined))
      throw new ConfigurationError(`${at}: give exactly one of jwks and jwksUri.`, { option: at });
    let keys: JWTVerifyGetKey | undefined;
    if (entry.jwks !== undefined) {
      keys = inlineKeySet({ jwks: entry.jwks });
      if (!keys)
        throw new ConfigurationError(`${at}.jwks: expected a JWK Set of public asymmetric keys.`, {
          option: `${at}.jwks`,
        });
    } else {
      let url: URL | undefined;
      try {
        url = new URL(entry.jwksUri!);
      } catch {}
      if (!url || (url.protocol !== 'https:' && url.protocol !== 'http:'))
        throw new ConfigurationError(`${at}.jwksUri: expected an absolute http(s) URL.`, {
          option: `${at}.jwksUri`,
        });
    }
    if (entry.userId !== undefined && typeof entry.userId !== 'function')
      throw new ConfigurationError(`${at}.userId: expected a function.`, { option: `${at}.userId` });
    const exchangeTyps = entry.exchangeTyps ?? DEFAULT_EXCHANGE_TYPS;
    if (
      !Array.isArray(exchangeTyps) ||
      exchangeTyps.length > 16 ||
      !exchangeTyps.every((typ) => typeof typ === 'string' && typ !== '' && typ.length <= 100)
    )
      throw new ConfigurationError(`${at}.exchangeTyps: expected at most 16 JWT typ values (strings).`, {
        option: `${at}.exchangeTyps`,
      });
    const refused = exchangeTyps.find((typ) => NON_SUBJECT_TYPS.has(normalizedTyp(typ)));
    if (refused !== undefined)
      throw new ConfigurationError(
        `${at}.exchangeTyps: "${refused}" is the typ of a JWT that is no subject's token (RFC 8725 section 3.11); it cannot be exchanged.`,
        { option: `${at}.exchangeTyps` },
      );
    resolved.set(entry.issuer, {
      issuer: entry.issuer,
      keys,
      jwksUri: entry.jwksUri,
      audience: entry.audience ?? ownIssuer,
      jwtBearer: entry.jwtBearer ?? false,
      exchangeTyps: new Set(exchangeTyps.map(normalizedTyp)),
      userId: entry.userId ?? ((claims) => (typeof claims.sub === 'string' ? claims.sub : null)),
    });
  });
  return resolved;
}

/**
 * The `iss` a JWT claims, before anything is verified (to pick the keys to verify it with), or
 * `undefined` when it is not a JWT of bounded size.
 */
export function claimedIssuer(token: string): string | undefined {
  if (token.length > MAX_ASSERTION_LENGTH) return undefined;
  try {
    const { iss } = decodeJwt(token);
    return typeof iss === 'string' ? iss : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Verifies a JWT of a trusted issuer (see `verifyAssertion`) with its keys: inline, or its
 * `jwksUri` document through the instance's guarded, cached fetch (`clientJwks`), fetched again
 * (at most once a minute) when no cached key matches the token's `kid`. `null` when it does not verify.
 */
export async function verifyTrustedJwt(
  ctx: TrustedJwtVerifying,
  trusted: TrustedIssuer,
  token: string,
  expected: Omit<AssertionExpectations, 'issuer'>,
): Promise<JWTPayload | null> {
  const check = (keys: JWTVerifyGetKey) =>
    verifyAssertion(ctx, token, keys, { ...expected, issuer: trusted.issuer });
  if (trusted.keys) {
    const outcome = await check(trusted.keys);
    return typeof outcome === 'object' ? outcome : null;
  }
  let keys = await ctx.clients.jwks.keySet(trusted.jwksUri!, ctx.clock.now(), false);
  if (!keys) return null;
  let outcome = await check(keys);
  if (outcome === 'no-key') {
    keys = await ctx.clients.jwks.keySet(trusted.jwksUri!, ctx.clock.now(), true);
    if (keys) outcome = await check(keys);
  }
  return typeof outcome === 'object' ? outcome : null;
}

/** Whether some trusted issuer's assertions are accepted (the JWT bearer grant is then offered). */
export function jwtBearerEnabled(ctx: Pick<Context, 'tokens'>): boolean {
  for (const trusted of ctx.tokens.trustedIssuers.values()) if (trusted.jwtBearer) return true;
  return false;
}
