import type { Context, PasswordChecking, TokenSigning } from '../context.js';
import type { Answer } from '../http/reply.js';
import { noStoreJson } from '../http/responses.js';
import type { Handler } from '../http/router.js';
import { shownUsername } from '../passwords/credential-limits.js';
import { attemptPasswordLogin } from '../passwords/password-login.js';
import { userSubject } from '../storage/subject.js';
import { signAccessToken } from '../tokens/access-token.js';
import { requireEmptyBody } from './empty-body.js';
import type { AuthApiSettings } from './settings.js';
import { badCredentials, readUserCredentials } from './user-credentials.js';

/**
 * `POST {base}/auth/v1/token`: exchanges a username and password, sent with
 * `Authorization: Basic` and no body, for an access token of the `auth_api` family:
 * 200 `{ access_token, token_type: "Bearer", expires_in }` with `Cache-Control: no-store`.
 *
 * The token has the same JWT form and audience as OAuth 2.0 access tokens (so REST operations
 * accept it), with `token_family: "auth_api"`, no `client_id`, no grant and the scope of
 * `authApi.scope` (empty by default; reported as `scope` in the response when not empty); it lasts
 * `authApi.tokenTtl` seconds and comes without a refresh token.
 *
 * Errors: a missing or malformed Basic header is 401 `invalid_request`; wrong credentials (unknown
 * user or wrong password, answered identically) are 401 `invalid_grant`, both with
 * `WWW-Authenticate: Basic`; credentials beyond `CREDENTIAL_LIMITS` are wrong credentials too (and a
 * Basic header longer than any within the limits is `invalid_request`). A non-empty body is 400
 * `invalid_request`. Failures are rate-limited per username and client address and per address
 * (`passwords/attempt-limiter.ts`): over a limit, 429 `too_many_requests` with `Retry-After`,
 * without the password being checked. Too many password checks in flight: 503
 * `temporarily_unavailable` with `Retry-After` (`passwords/password-check-gate.ts`).
 */
export function authApiTokenEndpoint(settings: AuthApiSettings): Handler {
  return (
    request,
    ctx: Pick<
      Context,
      | 'issuer'
      | 'clock'
      | 'randomBytes'
      | 'emit'
      | 'logger'
      | 'storage'
      | 'users'
      | 'keys'
      | 'tokens'
      | 'limits'
    >,
  ) => issueAuthApiToken(request, ctx, settings);
}

async function issueAuthApiToken(
  request: Request,
  ctx: PasswordChecking & TokenSigning & Pick<Context, 'limits' | 'issuer' | 'emit'>,
  settings: AuthApiSettings,
): Promise<Answer> {
  await requireEmptyBody(
    request,
    ctx.limits.maxBodyBytes,
    'This endpoint takes no body: send the username and password with HTTP Basic authentication.',
  );
  const { username, password } = readUserCredentials(request, ctx);
  const attempt = await attemptPasswordLogin(ctx, request, username, password);
  if (attempt.outcome === 'refused') {
    if (attempt.reason === 'rate_limited') {
      ctx.emit({ type: 'login.rate_limited', username: shownUsername(username), via: 'auth-api' });
    }
    throw attempt.error;
  }
  if (attempt.outcome === 'failed') {
    ctx.emit({ type: 'login.failed', username: shownUsername(username), via: 'auth-api' });
    throw badCredentials(ctx.issuer);
  }
  const { user } = attempt;
  const subject = userSubject(user.id);
  const access = await signAccessToken(ctx, {
    family: 'auth_api',
    subject,
    scope: settings.scope,
    ttl: settings.tokenTtl,
  });
  ctx.emit({ type: 'login.succeeded', userId: user.id, via: 'auth-api' });
  ctx.emit({ type: 'token.issued', subject, userId: user.id, grantType: 'auth_api' });
  return noStoreJson({
    access_token: access.token,
    token_type: 'Bearer',
    expires_in: settings.tokenTtl,
    ...(settings.scope === '' ? {} : { scope: settings.scope }),
  });
}
