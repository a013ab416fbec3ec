import type { Context } from '../context.js';
import { isAllowedOrigin } from '../http/origin.js';
import { sessionCookieValue } from '../session/session-cookie.js';
import { sessionUser } from '../session/session-user.js';
import { userSubject } from '../storage/subject.js';
import { toEpochSeconds } from '../time.js';
import { crossSiteSessionRefused, sessionEnded } from './challenge.js';
import type { Caller } from './types.js';

/** Methods that do not change state (RFC 9110 §9.2.1); everything else is "unsafe". */
const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

/**
 * Content types a cross-origin page can send without a CORS preflight (Fetch §2.2.2 "CORS-safelisted
 * request-header"), i.e. what an HTML form or a no-cors fetch can forge.
 */
const SAFELISTED_BODY_TYPES = new Set([
  'text/plain',
  'application/x-www-form-urlencoded',
  'multipart/form-data',
]);

/**
 * The caller of a request authenticated by the session cookie, or `null` when the request carries
 * none (or one that does not count, see below). Throws 401 for a cookie of an ended session and 403
 * for a state-changing request that could be cross-site request forgery. A session whose user no
 * longer exists counts as ended.
 *
 * The cookie counts only for requests from the instance's own origin or an allowed
 * origin. With an `Origin` header, that origin must be allowed (`isAllowedOrigin`). Without a usable
 * one, `Sec-Fetch-Site: same-origin` proves it (the header cannot be set by page scripts). A safe
 * method (GET/HEAD/OPTIONS) with neither header, or with `Sec-Fetch-Site: none` (a navigation the
 * user started), is accepted too: older browsers send neither on same-origin GETs, and SameSite=Lax
 * keeps the cookie off cross-site subrequests. Otherwise the cookie is ignored on safe methods and
 * refused with 403 on unsafe ones.
 *
 * CSRF defence in depth: an unsafe method authenticated by cookie must also carry a body type a
 * cross-origin page cannot send without a preflight (e.g. `application/json`); `text/plain`, forms,
 * multipart, or a body without a type are refused with 403 even from an allowed origin.
 *
 * Sessions represent the user themself, not a delegation to a client, so they carry no scope
 * (`scope: []`) and pass any scope requirement: scopes limit what a client may do for the user, and
 * what the user may do is the host's own authorization.
 */
export async function sessionCaller(
  ctx: Pick<Context, 'issuer' | 'site' | 'clock' | 'storage' | 'clients' | 'users' | 'session'>,
  request: Request,
  acceptsBearer: boolean,
): Promise<Caller | null> {
  if (sessionCookieValue(ctx, request) === undefined) return null;
  const unsafe = !SAFE_METHODS.has(request.method);
  if (!(await fromTrustedOrigin(ctx, request, unsafe))) {
    if (!unsafe) return null;
    throw crossSiteSessionRefused(
      'Session cookies are accepted only from the instance origin or an allowed origin; this cross-site request is refused.',
    );
  }
  if (unsafe && hasSafelistedBody(request)) {
    throw crossSiteSessionRefused(
      'A session-authenticated request that changes state must send a JSON body (Content-Type: application/json).',
    );
  }
  const active = await sessionUser(ctx, request);
  if (!active) throw sessionEnded(ctx, acceptsBearer);
  const { session } = active;
  return {
    sub: session.record.userId,
    subject: userSubject(session.record.userId),
    scheme: 'session',
    scope: [],
    expiresAt: toEpochSeconds(session.endsAt),
  };
}

async function fromTrustedOrigin(
  ctx: Pick<Context, 'site' | 'clients'>,
  request: Request,
  unsafe: boolean,
): Promise<boolean> {
  const origin = request.headers.get('origin');
  if (origin !== null && origin !== 'null') return isAllowedOrigin(ctx, origin);
  const site = request.headers.get('sec-fetch-site');
  if (site === 'same-origin') return true;
  if (origin === 'null') return false;
  return !unsafe && (site === null || site === 'none');
}

function hasSafelistedBody(request: Request): boolean {
  const type = request.headers.get('content-type');
  if (type === null) {
    // A body without a type; adapters may hand over a request without its body stream, so the
    // framing headers count too.
    const length = request.headers.get('content-length');
    if (length !== null) return length !== '0';
    return request.body !== null || request.headers.has('transfer-encoding');
  }
  return SAFELISTED_BODY_TYPES.has(type.split(';')[0]!.trim().toLowerCase());
}
