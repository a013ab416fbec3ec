import { decodeProtectedHeader, type JWTPayload, type JWTVerifyGetKey, UnsecuredJWT } from 'jose';
import type { Context } from '../../context.js';
import { oauthError, type ProtocolError } from '../../errors.js';
import { clientWritePartition } from '../../http/address-rate-limit.js';
import { Params } from '../../http/form.js';
import { isSelfRegistered } from '../../storage/self-registered.js';
import type { ClientRecord } from '../../storage/types.js';
import { inlineKeySet } from '../client-auth/client-jwks.js';
import { assertionQuota } from '../client-auth/private-key-jwt.js';
import {
  ASSERTION_SIGNING_ALGORITHMS,
  MAX_ASSERTION_LENGTH,
  useAssertionOnce,
  verifyAssertion,
} from '../jwt-assertion.js';
/** What verifying a request object needs of the instance's settings (`requestObjects`). */
export interface RequestObjectPolicy {
  /** Every client must sign its requests. */
  readonly required: boolean;
  /** Unsigned objects are accepted from clients registered for them. */
  readonly allowUnsigned: boolean;
}
type Policy = RequestObjectPolicy;

/*
 * RFC 9101 request objects by value (`request`): a JWT whose claims are the authorization request's
 * parameters, signed by the client with a key it registered. What one unauthenticated request can
 * make the server do is bounded: the object's length (that of a client assertion), one signature
 * verification with the client's keys (a `jwks_uri` fetch goes through the client key cache, charged
 * to the caller's address), and one replay id kept until the object expires (at most five minutes),
 * in the client's own share of the replay store (docs/security.md).
 */

/** RFC 9101 §10.8 / §4: the media type of a request object, as its `typ` header. */
export const REQUEST_OBJECT_TYPE = 'oauth-authz-req+jwt';

/** The JWT claims of the object itself, which are no authorization parameters (RFC 7519 §4.1). */
const JWT_CLAIMS: ReadonlySet<string> = new Set(['iss', 'aud', 'exp', 'nbf', 'iat', 'jti', 'sub']);

/** What verifying a request object reads: the client's keys and the replay store. */
export type RequestObjectVerifying = Pick<Context, 'issuer' | 'clock' | 'storage' | 'clients' | 'limits'>;

/** `invalid_request_object` (RFC 9101 §6.3, OpenID Connect Core §3.1.2.6), saying why. */
function invalidRequestObject(description: string): ProtocolError {
  return oauthError('invalid_request_object', description);
}

/**
 * The authorization parameters of a request object of `client` (RFC 9101 §6): verified (§6.2:
 * `typ` `oauth-authz-req+jwt`, signed with an asymmetric algorithm by a key the client registered,
 * `iss` the client, `aud` this issuer, `exp` at most five minutes ahead, `nbf`, a `jti` never seen
 * before from this client), then its claims as parameters (§6.3: only those; the request's other
 * parameters are ignored), `client_id` the client's. An unsigned object (`alg: none`) only from a
 * client registered with `requestObjectSigningAlg: 'none'` where the instance allows it. Throws
 * `invalid_request_object` (400) for anything else; `request`, when given, pays for a key set fetch.
 */
export async function requestObjectParameters(
  ctx: RequestObjectVerifying,
  settings: Policy,
  client: ClientRecord,
  jwt: string,
  request?: Request,
): Promise<Params> {
  if (jwt.length > MAX_ASSERTION_LENGTH)
    throw invalidRequestObject(`The request object is longer than ${MAX_ASSERTION_LENGTH} characters.`);
  let alg: unknown;
  try {
    alg = decodeProtectedHeader(jwt).alg;
  } catch {
    throw invalidRequestObject('The request parameter is not a JWT.');
  }
  const registered = client.requestObjectSigningAlg;
  const claims =
    alg === 'none'
      ? unsignedClaims(ctx, settings, client, jwt)
      : await signedClaims(ctx, client, jwt, alg, registered, request);
  // RFC 9101 §6.2 replay: each object is used once, its jti remembered in the client's share (a
  // self-registered client's in its caller's network's) until it expires.
  const payer =
    isSelfRegistered(client) && request !== undefined
      ? await clientWritePartition(ctx, request, client, false)
      : undefined;
  if (
    !(await useAssertionOnce(ctx, 'request-object', client.id, claims, {
      payer,
      quota: assertionQuota(client),
    }))
  )
    throw invalidRequestObject(
      'The request object was used before, expires more than 300 seconds ahead, or has no usable jti.',
    );
  return parametersOf(client, claims);
}

async function signedClaims(
  ctx: RequestObjectVerifying,
  client: ClientRecord,
  jwt: string,
  alg: unknown,
  registered: ClientRecord['requestObjectSigningAlg'],
  request: Request | undefined,
): Promise<JWTPayload> {
  if (typeof alg !== 'string' || !(ASSERTION_SIGNING_ALGORITHMS as readonly string[]).includes(alg))
    throw invalidRequestObject('The request object must be signed with an asymmetric algorithm.');
  if (registered !== undefined && registered !== alg)
    throw invalidRequestObject(`The client signs its request objects with ${registered}, not ${alg}.`);
  let keys = await clientKeys(ctx, client, false, request);
  if (keys === undefined)
    throw invalidRequestObject(
      'The client has registered no keys (jwks or jwks_uri) to verify request objects.',
    );
  const expected = {
    issuer: client.id,
    audience: [ctx.issuer],
    typ: REQUEST_OBJECT_TYPE,
    requiredClaims: ['jti'],
  };
  let claims = await verifyAssertion(ctx, jwt, keys, expected);
  if (claims === 'no-key' && client.jwksUri !== undefined) {
    // The client may have rotated its keys since they were cached: fetch again (rate-limited).
    keys = await clientKeys(ctx, client, true, request);
    if (keys !== undefined) claims = await verifyAssertion(ctx, jwt, keys, expected);
  }
  if (typeof claims !== 'object')
    throw invalidRequestObject(
      `The request object is not signed by a key of the client, or its typ (${REQUEST_OBJECT_TYPE}), iss (the client_id), aud (the issuer), exp or nbf is wrong.`,
    );
  return claims;
}

/** RFC 9101 §10.2: an unsigned object, only where both the instance and the client's registration allow it. */
function unsignedClaims(
  ctx: RequestObjectVerifying,
  settings: Policy,
  client: ClientRecord,
  jwt: string,
): JWTPayload {
  if (!settings.allowUnsigned || client.requestObjectSigningAlg !== 'none')
    throw invalidRequestObject('Unsigned request objects (alg none) are not accepted from this client.');
  try {
    return UnsecuredJWT.decode(jwt, {
      issuer: client.id,
      audience: ctx.issuer,
      typ: REQUEST_OBJECT_TYPE,
      requiredClaims: ['exp', 'jti'],
      currentDate: new Date(ctx.clock.now()),
      clockTolerance: ctx.clock.toleranceSeconds,
    }).payload;
  } catch {
    throw invalidRequestObject(
      `The unsigned request object's typ (${REQUEST_OBJECT_TYPE}), iss, aud, exp or nbf is wrong.`,
    );
  }
}

/** The registered keys of `client`: inline `jwks`, else its cached or fetched `jwks_uri` document. */
async function clientKeys(
  ctx: RequestObjectVerifying,
  client: ClientRecord,
  stale: boolean,
  request: Request | undefined,
): Promise<JWTVerifyGetKey | undefined> {
  if (client.jwks !== undefined) return inlineKeySet(client);
  if (client.jwksUri !== undefined)
    return ctx.clients.jwks.keySet(client.jwksUri, ctx.clock.now(), stale, request);
  return undefined;
}

/**
 * The object's claims as authorization parameters (RFC 9101 §4): strings as they are, numbers and
 * booleans as their text, a `resource` array as several `resource` parameters, other objects and
 * arrays (`authorization_details`, `claims`) as JSON. It may not
 * itself name `request` or `request_uri` (§4), and a `client_id` in it is the client's (§6.3).
 */
function parametersOf(client: ClientRecord, claims: JWTPayload): Params {
  const parameters = new URLSearchParams();
  for (const [name, value] of Object.entries(claims)) {
    if (JWT_CLAIMS.has(name) || value === undefined || value === null) continue;
    if (name === 'request' || name === 'request_uri')
      throw invalidRequestObject(`A request object must not contain ${name} (RFC 9101 section 4).`);
    if (name === 'client_id') {
      if (value !== client.id)
        throw invalidRequestObject('The client_id of the request object differs from the request’s.');
      continue;
    }
    // RFC 8707 §2: several resources are an array of strings in the object, several parameters outside.
    if (name === 'resource' && Array.isArray(value)) {
      for (const resource of value)
        parameters.append(name, typeof resource === 'string' ? resource : JSON.stringify(resource));
      continue;
    }
    parameters.set(
      name,
      typeof value === 'string' ? value : typeof value === 'object' ? JSON.stringify(value) : String(value),
    );
  }
  parameters.set('client_id', client.id);
  return new Params(parameters);
}

/**
 * Whether `client` must send signed request objects (RFC 9101 §10.5): every client when the
 * instance requires them, else the client's own `requireSignedRequestObject`.
 */
export function mustSignRequests(settings: Policy, client: ClientRecord): boolean {
  return settings.required || client.requireSignedRequestObject === true;
}
