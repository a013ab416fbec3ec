import type { Context } from '../context.js';
import { basicChallenge, oauthError, ProtocolError } from '../errors.js';
import { type BasicCredentials, parseBasicAuth } from '../http/basic-auth.js';

/**
 * 401 `invalid_grant`: the username and password do not match a user. RFC 6749 §5.2 names
 * `invalid_grant` for invalid "resource owner credentials", which is exactly what these are; the
 * status is 401 with a Basic challenge because the credentials travel in HTTP authentication
 * (RFC 9110 §15.5.2). Unknown user and wrong password get this same answer.
 */
export function badCredentials(realm: string): ProtocolError {
  return oauthError('invalid_grant', 'The username or password is incorrect.', {
    challenge: basicChallenge(realm),
    unauthenticated: true,
  });
}

/**
 * The user's username and password from `Authorization: Basic` (RFC 7617; UTF-8, and unlike client
 * credentials not form-urlencoded). A missing header, another scheme, a malformed header or an empty
 * username is 401 `invalid_request` with a Basic challenge and a description saying what is wrong.
 */
export function readUserCredentials(request: Request, ctx: Pick<Context, 'issuer'>): BasicCredentials {
  let credentials: BasicCredentials | null;
  try {
    credentials = parseBasicAuth(request.headers.get('authorization'));
  } catch (error) {
    if (error instanceof ProtocolError) throw unauthenticated(ctx.issuer, error.description);
    throw error;
  }
  if (credentials === null) {
    throw unauthenticated(
      ctx.issuer,
      'Send the username and password with HTTP Basic authentication: Authorization: Basic base64(username:password).',
    );
  }
  if (credentials.username === '') throw unauthenticated(ctx.issuer, 'The username is empty.');
  return credentials;
}

function unauthenticated(realm: string, description: string): ProtocolError {
  return oauthError('invalid_request', description, {
    challenge: basicChallenge(realm),
    unauthenticated: true,
  });
}
