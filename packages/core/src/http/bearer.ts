import { invalidRequest } from '../errors.js';

/**
 * The bearer token of `Authorization: Bearer <token>` (RFC 6750 §2.1; the scheme name is
 * case-insensitive, RFC 9110 §11.1). `null` when the header is absent or another scheme.
 * A Bearer header without a well-formed token (b64token syntax) is `invalid_request`.
 * Tokens in the query string (`?access_token=`) are deliberately not read (RFC 9700 §2.5).
 */
export function parseBearerToken(request: Request): string | null {
  const token = bearerCredentials(request);
  if (token !== null && !isB64Token(token))
    throw invalidRequest('The Bearer authorization header is malformed.');
  return token;
}

/**
 * What follows the `Bearer` scheme name in the `Authorization` header, trimmed, **not yet checked**
 * against the token syntax ({@link isB64Token}); `null` when the header is absent or another scheme.
 * The bearer check of protected routes uses it to look a token up among verified ones first: a
 * token that was verified before is well-formed, and matching a ~700-character JWT against the
 * b64token pattern cost about as much as the rest of a cached check.
 */
export function bearerCredentials(request: Request): string | null {
  const header = request.headers.get('authorization');
  if (header === null) return null;
  const value = header.trim();
  // "Bearer" in any case, then at least one space before the token, or nothing at all.
  if (value.length < BEARER.length || !startsWithBearer(value)) return null;
  if (value.length > BEARER.length && value.charCodeAt(BEARER.length) !== SPACE) return null;
  return value.slice(BEARER.length).trim();
}

/**
 * What follows the `DPoP` scheme name in the `Authorization` header (RFC 9449 §7.1; any case),
 * trimmed and not yet checked; `null` when the header is absent or another scheme.
 */
export function dpopCredentials(request: Request): string | null {
  const header = request.headers.get('authorization');
  if (header === null) return null;
  const value = header.trim();
  if (value.length < DPOP.length || value.slice(0, DPOP.length).toLowerCase() !== DPOP) return null;
  if (value.length > DPOP.length && value.charCodeAt(DPOP.length) !== SPACE) return null;
  return value.slice(DPOP.length).trim();
}

const DPOP = 'dpop';
const BEARER = 'bearer';
const SPACE = 0x20;

/** Whether `value` starts with "bearer" in any ASCII case (`| 0x20` lower-cases ASCII letters only). */
function startsWithBearer(value: string): boolean {
  for (let i = 0; i < BEARER.length; i++) {
    if ((value.charCodeAt(i) | 0x20) !== BEARER.charCodeAt(i)) return false;
  }
  return true;
}

/** RFC 6750 §2.1: `b64token = 1*( ALPHA / DIGIT / "-" / "." / "_" / "~" / "+" / "/" ) *"="`. */
const B64TOKEN = /^[A-Za-z0-9\-._~+/]+=*$/;

/** Whether `token` has the b64token syntax of RFC 6750 §2.1. */
export function isB64Token(token: string): boolean {
  return B64TOKEN.test(token);
}
