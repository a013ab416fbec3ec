import type { IssuerSite } from './context.js';
import { ConfigurationError } from './errors.js';

const LOOPBACK = new Set(['localhost', '127.0.0.1', '[::1]']);

/** Parses and checks the issuer (RFC 8414 §2: https, no query or fragment). */
export function parseIssuer(issuer: string, allowInsecure: boolean): URL {
  let url: URL;
  try {
    url = new URL(issuer);
  } catch {
    throw new ConfigurationError(`issuer: "${issuer}" is not an absolute URL.`, {
      code: issuer === undefined ? 'ERR_CONFIG_MISSING_OPTION' : 'ERR_CONFIG_INVALID_OPTION',
      option: 'issuer',
    });
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:')
    throw new ConfigurationError('issuer: must be an http(s) URL.', { option: 'issuer' });
  if (url.search || url.hash || issuer.includes('?') || issuer.includes('#')) {
    throw new ConfigurationError('issuer: must not have a query or fragment (RFC 8414 §2).', {
      option: 'issuer',
    });
  }
  if (url.protocol === 'http:' && !LOOPBACK.has(url.hostname) && !allowInsecure) {
    throw new ConfigurationError(
      `issuer: "${issuer}" is not https. Use https, a loopback host, or set allowInsecureIssuer for a non-production setup.`,
      { option: 'issuer' },
    );
  }
  return url;
}

/**
 * The issuer of `url` (no trailing slash) and where it is: origin, path, https or not. `given` is
 * the `issuer` option as written, which must be exactly that identifier.
 */
export function issuerOf(url: URL, given: string): { readonly issuer: string; readonly site: IssuerSite } {
  const basePath = url.pathname.replace(/\/+$/, '');
  const issuer = url.origin + basePath;
  // The issuer is an identifier compared byte for byte (RFC 8414 §3.3, OpenID Connect Discovery
  // §4.3, every ID token's `iss`): written otherwise than it is used (a trailing slash, an upper-case
  // host, a default port), relying parties configured as written would fail discovery.
  if (issuer !== given)
    throw new ConfigurationError(
      `issuer: "${given}" is not written as the issuer identifier it stands for, "${issuer}" (without a trailing slash, host in lower case, no default port): give "${issuer}", and configure relying parties with exactly that.`,
      { code: 'ERR_CONFIG_INVALID_OPTION', option: 'issuer' },
    );
  return {
    issuer,
    site: { origin: url.origin, basePath, secure: url.protocol === 'https:' },
  };
}
