import type { Context } from '../../context.js';
import { oauthError, quoteAuthParam } from '../../errors.js';
import { bearerCredentials } from '../../http/bearer.js';
import { noStoreEmpty, noStoreJson } from '../../http/responses.js';
import type { Handler } from '../../http/router.js';
import { unstorableText } from '../../http/storable-text.js';
import type { RegisteredClient } from '../../storage/types.js';
import { hashSecret, timingSafeEqual } from '../../tokens/secrets.js';
import { ENDPOINTS } from '../metadata.js';
import { clientInformation } from './client-information.js';
import { registrationExtensionOf } from './registration-record.js';

/** `GET {registration}/{client_id}` (RFC 7592 §2.1): the registration, with the registration access token. */
export const readRegistrationEndpoint: Handler = async (
  request,
  ctx: Pick<Context, 'issuer' | 'clock' | 'storage'>,
  url,
) => {
  const registration = await authorizedRegistration(ctx, request, url);
  return noStoreJson(clientInformation(ctx, registration));
};

/**
 * `DELETE {registration}/{client_id}` (RFC 7592 §2.3): removes the registration, answered 204.
 * The client's refresh tokens stop working at once (their client is unknown to the token
 * endpoint); its access tokens run to their expiry, like those of a host-removed client.
 */
export const deleteRegistrationEndpoint: Handler = async (
  request,
  ctx: Pick<Context, 'issuer' | 'clock' | 'emit' | 'storage'>,
  url,
) => {
  const registration = await authorizedRegistration(ctx, request, url);
  await ctx.storage.clients.deleteClient(registration.client.id);
  ctx.emit({ type: 'client.unregistered', clientId: registration.client.id });
  return noStoreEmpty(204, {});
};

/**
 * The dynamic registration named by the path whose registration access token the request carries.
 * A missing token is 401 without an error code; an unknown client, a registration not made by
 * dynamic registration (a client ID metadata document's) and a wrong token are the same 401
 * `invalid_token` (RFC 7592 §2: the server does not say whether the client exists), after the same
 * work.
 */
async function authorizedRegistration(
  ctx: Pick<Context, 'issuer' | 'storage' | 'clock'>,
  request: Request,
  url: URL,
): Promise<RegisteredClient> {
  const realm = `Bearer realm=${quoteAuthParam(ctx.issuer)}`;
  const token = bearerCredentials(request);
  if (token === null || token === '')
    throw oauthError('unauthorized', 'The registration access token is missing.', { challenge: realm });
  const presentedHash = await hashSecret(token);
  const clientId = clientIdOf(url);
  const registration =
    clientId === undefined ? null : await ctx.storage.clients.findClient(clientId, ctx.clock.now());
  const expected = registration && registrationExtensionOf(registration)?.registration_access_token_hash;
  if (!registration || typeof expected !== 'string' || !timingSafeEqual(presentedHash, expected))
    throw oauthError('invalid_token', 'The registration access token is not valid for this client.', {
      challenge: `${realm}, error="invalid_token"`,
    });
  return registration;
}

/** The `{client_id}` segment after the registration endpoint's path. */
function clientIdOf(url: URL): string | undefined {
  const prefix = `${ENDPOINTS.registration}/`;
  const at = url.pathname.lastIndexOf(prefix);
  if (at < 0) return undefined;
  let clientId: string;
  try {
    clientId = decodeURIComponent(url.pathname.slice(at + prefix.length));
  } catch {
    return undefined;
  }
  // No registered client has one (ids are generated), and PostgreSQL could not even look it up.
  return unstorableText(clientId) === undefined ? clientId : undefined;
}
