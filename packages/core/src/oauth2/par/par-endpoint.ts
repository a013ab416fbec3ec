import type { Context } from '../../context.js';
import type { ProofContext } from '../../dpop/proof.js';
import { invalidRequest } from '../../errors.js';
import type { InstanceSettings } from '../../feature.js';
import { chargeClientNetwork, clientWritePartition } from '../../http/address-rate-limit.js';
import { readForm } from '../../http/form.js';
import type { Answer } from '../../http/reply.js';
import { noStoreJson } from '../../http/responses.js';
import type { Handler } from '../../http/router.js';
import { resolveAuthorizationTarget, validateAuthorizationRequest } from '../authorize/request.js';
import { authenticateClient } from '../client-auth/authenticate-client.js';
import { CLIENT_AUTH_METHODS } from '../client-auth/methods.js';
import { checkProfileClientAuth } from '../fapi/profile.js';
import { tokenRequestProof } from '../token-request-proof.js';
import { savePushedRequest } from './pushed-requests.js';
import type { PushedRequestSettings } from './settings.js';

/**
 * What other features check of a pushed request, as of a request at the authorization endpoint
 * (the instance settings): `authorization_details` (RFC 9396).
 */
export type PushedRequestChecks = Pick<InstanceSettings, 'authorizationDetails'>;

/**
 * `POST {base}/oauth2/v1/par`, the pushed authorization request endpoint (RFC 9126 §2): the client
 * authenticates exactly as at the token endpoint (public clients name themselves with
 * `client_id`), and the authorization parameters are validated by the same code as at the
 * authorization endpoint (§2.1: "the AS MUST validate the request the same way as at the
 * authorization endpoint"): an unregistered `redirect_uri`, a public client without PKCE, an
 * unknown scope… are refused here with 400 and the error code the authorization endpoint would
 * redirect (§2.3). A valid request is stored (bounded, see `pushed-requests.ts`) and answered 201
 * with its `request_uri` and `expires_in` (§2.2).
 */
export function pushedAuthorizationEndpoint(
  settings: PushedRequestSettings,
  dpopChecks: ProofContext,
  checks: PushedRequestChecks,
): Handler {
  return (
    request,
    ctx: Pick<
      Context,
      | 'issuer'
      | 'site'
      | 'clock'
      | 'randomBytes'
      | 'emit'
      | 'storage'
      | 'clients'
      | 'keys'
      | 'tokens'
      | 'limits'
      | 'profile'
    >,
  ) => pushAuthorizationRequest(request, ctx, settings, dpopChecks, checks);
}

async function pushAuthorizationRequest(
  request: Request,
  ctx: Pick<
    Context,
    | 'issuer'
    | 'site'
    | 'clock'
    | 'randomBytes'
    | 'emit'
    | 'storage'
    | 'clients'
    | 'keys'
    | 'tokens'
    | 'limits'
    | 'profile'
  >,
  settings: PushedRequestSettings,
  dpopChecks: ProofContext,
  { authorizationDetails: details }: PushedRequestChecks,
): Promise<Answer> {
  const params = await readForm(request, ctx.limits.maxBodyBytes);
  const authenticated = await authenticateClient(ctx, request, params);
  // The stored request is charged to whoever pays for it (docs/security.md, "Stored state"): a
  // confidential client itself; a public client proves nothing, so its caller's network, whose
  // pushes are limited.
  const write = CLIENT_AUTH_METHODS[authenticated.method]?.provesIdentity
    ? { partition: await clientWritePartition(ctx, request, authenticated.client, true) }
    : (
        await chargeClientNetwork(ctx, request, {
          name: 'par',
          max: settings.maxPublicPushesPerAddress,
          windowSeconds: 60,
          description: 'Too many pushed authorization requests from this address; try again later.',
        })
      ).write;
  checkProfileClientAuth(ctx, authenticated);
  const { client } = authenticated;
  // §2.1: "request_uri" MUST NOT be provided in this case.
  if (params.has('request_uri'))
    throw invalidRequest(
      'A pushed authorization request must not contain a request_uri (RFC 9126 section 2.1).',
    );
  // FAPI 2.0 §5.3.2.2: the redirect URI is always named in the pushed request.
  if (ctx.profile.securityProfile === 'fapi2' && params.get('redirect_uri') === undefined)
    throw invalidRequest('The redirect_uri parameter is required (FAPI 2.0 profile).');
  // The authenticated client is the request's client_id (authenticateClient refused another one).
  let withClient = params.with('client_id', client.id);
  // RFC 9449 §10.1: a DPoP proof here binds the code to its key, as dpop_jkt does.
  // A proof is optional here (dpop_jkt may bind instead), whatever the token endpoint requires.
  const dpop = await tokenRequestProof(ctx, dpopChecks, request, authenticated, false);
  if (dpop !== undefined) {
    const sent = params.get('dpop_jkt');
    if (sent !== undefined && sent !== dpop.jkt)
      throw invalidRequest('The dpop_jkt differs from the key of the DPoP proof.');
    withClient = withClient.with('dpop_jkt', dpop.jkt);
  }
  const target = await resolveAuthorizationTarget(ctx, withClient);
  const auth = validateAuthorizationRequest(ctx, target, withClient, details);
  const requestUri = await savePushedRequest(ctx, settings.requestUriTtl, client.id, auth.parameters, write);
  return noStoreJson({ request_uri: requestUri, expires_in: settings.requestUriTtl }, { status: 201 });
}
