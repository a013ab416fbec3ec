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

/** The issuer of `url` (no trailing slash) and where it is: origin, path, https or not. */
export function issuerOf(url: URL): { readonly issuer: string; readonly site: IssuerSite } {
  const basePath = url.pathname.replace(/\/+$/, '');
  return {
    issuer: url.origin + basePath,
    site: { origin: url.origin, basePath, secure: url.protocol === 'https:' },
  };
}
