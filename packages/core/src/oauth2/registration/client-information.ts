import type { Context } from '../../context.js';
import type { RegisteredClient } from '../../storage/types.js';
import { toEpochSeconds } from '../../time.js';
import { ENDPOINTS } from '../metadata.js';
import { registrationExtensionOf } from './registration-record.js';

/** RFC 7592 §2: where a registration is read and deleted. */
export function registrationClientUri(ctx: Pick<Context, 'issuer'>, clientId: string): string {
  return `${ctx.issuer}${ENDPOINTS.registration}/${encodeURIComponent(clientId)}`;
}

/**
 * The client information response (RFC 7591 §3.2.1, RFC 7592 §3) of a registration: the client id
 * and every registered metadata value, as Gatehouse registered them (defaults included, so the
 * client learns what it got). Credentials are added by the caller: the secret and the
 * registration access token exist in clear only in the answer to the registration itself.
 */
export function clientInformation(
  ctx: Pick<Context, 'issuer'>,
  registration: RegisteredClient,
): Record<string, unknown> {
  const { client } = registration;
  const metadata = registrationExtensionOf(registration)?.metadata ?? {};
  return {
    client_id: client.id,
    client_id_issued_at: toEpochSeconds(registration.registeredAt),
    ...(client.type === 'confidential' ? { client_secret_expires_at: 0 } : {}),
    registration_client_uri: registrationClientUri(ctx, client.id),
    ...(client.name === undefined ? {} : { client_name: client.name }),
    redirect_uris: client.redirectUris,
    token_endpoint_auth_method: client.tokenEndpointAuthMethod,
    grant_types: client.grantTypes,
    ...(client.scopes === undefined ? {} : { scope: client.scopes.join(' ') }),
    ...(client.requirePushedAuthorizationRequests ? { require_pushed_authorization_requests: true } : {}),
    ...(client.dpopBoundAccessTokens ? { dpop_bound_access_tokens: true } : {}),
    ...(client.backchannelLogoutUri === undefined
      ? {}
      : {
          backchannel_logout_uri: client.backchannelLogoutUri,
          backchannel_logout_session_required: client.backchannelLogoutSessionRequired === true,
        }),
    ...(client.requireSignedRequestObject ? { require_signed_request_object: true } : {}),
    ...(client.requestObjectSigningAlg === undefined
      ? {}
      : { request_object_signing_alg: client.requestObjectSigningAlg }),
    ...(client.authorizationDetailsTypes === undefined
      ? {}
      : { authorization_details_types: client.authorizationDetailsTypes }),
    ...(client.backchannelTokenDeliveryMode === undefined
      ? {}
      : { backchannel_token_delivery_mode: client.backchannelTokenDeliveryMode }),
    ...(client.backchannelClientNotificationEndpoint === undefined
      ? {}
      : { backchannel_client_notification_endpoint: client.backchannelClientNotificationEndpoint }),
    ...metadata,
  };
}
