import { invalidRequest } from '../errors.js';

/**
 * The bearer token of `Authorization: Bearer <token>` (RFC 6750 §2.1; the scheme name is
 * case-insensitive, RFC 9110 §11.1). `null` when the header is absent or another scheme.
 * A Bearer header without a well-formed token (b64token syntax) is `invalid_request`.
 * Tokens in the query string (`?access_token=`) are deliberately not read (RFC 9700 §2.5).
 */
export function parseBearerToken(request: Request): string | null {
  const header = request.headers.get('authorization');
  if (header === null) return null;
  const match = /^bearer(?:[ ]+(.*))?$/is.exec(header.trim());
  if (!match) return null;
  const token = (match[1] ?? '').trim();
  if (!/^[A-Za-z0-9\-._~+/]+=*$/.test(token))
    throw invalidRequest('The Bearer authorization header is malformed.');
  return token;
}
