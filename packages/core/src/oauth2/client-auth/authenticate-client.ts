import type { ClientAuthentication } from '../../context.js';
import { invalidClient, invalidRequest } from '../../errors.js';
import type { Params } from '../../http/form.js';
import { recordedText } from '../../recorded-text.js';
import { ClientRecordError } from '../../records/client-record.js';
import { clientNamed } from '../../records/record-problems.js';
import type { ClientRecord, TokenEndpointAuthMethod } from '../../storage/types.js';
import type { ClientAuthMethod, PresentedClient } from './method.js';
import { CREDENTIAL_BODY_PARAMETERS, clientAuthMethods, registeredAuthMethod } from './methods.js';

/** A client whose identity the request proved (or, for public clients, claimed). */
export interface AuthenticatedClient {
  readonly client: ClientRecord;
  /** The method it authenticated with: the one it is registered for. */
  readonly method: TokenEndpointAuthMethod;
}

/**
 * Authenticates the client of a token, revocation or introspection request (RFC 6749 §2.3) by the
 * table of methods (`methods.ts`):
 * 1. detection: which methods the request uses. None → 401 `invalid_client`; two at once, or a
 *    `client_id` in the body naming another client than the credentials → 400 `invalid_request`
 *    (§2.3); a credential parameter no method reads → 400 `invalid_request`;
 * 2. the client registered under the presented id, for exactly the method used, and the
 *    verification of its credentials. Unknown client, another registered method and wrong
 *    credentials fail identically (401 `invalid_client` with a Basic challenge), after the same
 *    work, so that client ids and their methods cannot be probed.
 */
export async function authenticateClient(
  ctx: ClientAuthentication,
  request: Request,
  params: Params,
): Promise<AuthenticatedClient> {
  const { method, presented } = detectMethod(ctx, request, params);
  // The client of the presented id, or `null` when it is unknown, or known with a record that
  // cannot work (`refused`, logged by the client directory): both fail as every unknown client does.
  let found: ClientRecord | null = null;
  let refused = false;
  try {
    found = await ctx.clients.findClient(presented.clientId, request);
  } catch (error) {
    if (!(error instanceof ClientRecordError)) throw error;
    refused = true;
  }
  const registered = found ? registeredAuthMethod(found) : undefined;
  const client = found && registered === method.name ? found : undefined;
  // Ready at once for a secret hashed natively: only a promise is awaited.
  let verified = method.verify(ctx, presented, client);
  if (verified instanceof Promise) verified = await verified;
  if (!client || !verified) {
    const reason = !found ? 'unknown_client' : !client ? 'method_not_registered' : 'invalid_credentials';
    ctx.emit({
      type: 'client.authentication_failed',
      // As presented: any length the body limit lets through, so cut (see `recordedText`).
      clientId: recordedText(presented.clientId),
      method: method.name,
      reason,
      ...(found && registered !== undefined ? { registeredMethod: registered } : {}),
    });
    throw invalidClient(
      ctx.issuer,
      refused
        ? `${clientNamed(presented.clientId)} has a record that was refused (the log line naming its field says why)`
        : failureReason(presented.clientId, method.name, reason, registered),
    );
  }
  return { client, method: method.name };
}

/** The debug log's words for a failed client authentication (the answer itself stays generic). */
function failureReason(
  clientId: string,
  used: string,
  reason: 'unknown_client' | 'method_not_registered' | 'invalid_credentials',
  registered: string | undefined,
): string {
  const who = clientNamed(clientId);
  if (reason === 'unknown_client') return `${who} is not registered (authenticated with ${used})`;
  if (reason === 'method_not_registered')
    return registered === undefined
      ? `${who} has no usable token endpoint authentication method (its type and tokenEndpointAuthMethod disagree); the request used ${used}`
      : `${who} is registered for ${registered} but the request used ${used} (a client library's default may differ: configure it for ${registered}, or register the client with tokenEndpointAuthMethod: "${used}")`;
  return `${who} presented ${used} credentials that do not verify`;
}

interface Detected {
  readonly method: ClientAuthMethod;
  readonly presented: PresentedClient;
}

/** Step 1: the one method the request uses, with what it presents. */
function detectMethod(ctx: ClientAuthentication, request: Request, params: Params): Detected {
  for (const name of CREDENTIAL_BODY_PARAMETERS) {
    // `get`, not `has`: a parameter sent without a value is an omitted one (RFC 6749 §3.2), as
    // the empty `client_secret=` that node-oauth (passport-oauth2) sends beside HTTP Basic.
    if (
      params.get(name) !== undefined &&
      !clientAuthMethods.some((method) => method.bodyParameters.includes(name))
    ) {
      throw invalidRequest(
        `Client authentication with "${name}" in the body is not supported (see token_endpoint_auth_methods_supported).`,
      );
    }
  }
  let proving: Detected | undefined;
  let claiming: Detected | undefined;
  for (const method of clientAuthMethods) {
    const presented = method.detect(ctx, request, params);
    if (presented === undefined) continue;
    if (!method.provesIdentity) {
      claiming ??= { method, presented };
      continue;
    }
    if (proving) throw invalidRequest('The request uses more than one client authentication method.');
    proving = { method, presented };
  }
  if (proving) {
    // A matching client_id in the body is no second method (many client libraries send it).
    const bodyClientId = params.get('client_id');
    if (bodyClientId !== undefined && bodyClientId !== proving.presented.clientId) {
      throw invalidRequest('The client_id in the body differs from the authenticated client.');
    }
    return proving;
  }
  if (claiming) return claiming;
  throw invalidClient(
    ctx.issuer,
    'the request carries no client authentication (no Authorization header, client_id or client_assertion)',
  );
}
