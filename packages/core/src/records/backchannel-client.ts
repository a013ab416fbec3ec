import { isLoopbackHost } from '../http/ip-address.js';

/*
 * What a client registers for OpenID Client-Initiated Backchannel Authentication (CIBA Core 1.0
 * §4): its token delivery mode and, in ping mode, its notification endpoint. Shared by where client
 * metadata enters (host client records, RFC 7591 registration) and by the CIBA feature, which
 * serves the grant.
 */

/** CIBA §10.1: the grant type of the token request. */
export const CIBA_GRANT = 'urn:openid:params:grant-type:ciba';

/** The token delivery modes Gatehouse serves (CIBA §5; `push` is not served). */
export const CIBA_DELIVERY_MODES = ['poll', 'ping'] as const;

/** One of {@link CIBA_DELIVERY_MODES}. */
export type CibaDeliveryMode = (typeof CIBA_DELIVERY_MODES)[number];

/** Longest notification endpoint accepted, in characters. */
const MAX_ENDPOINT_LENGTH = 2000;

/**
 * Why `uri` cannot be a `backchannel_client_notification_endpoint`, or `undefined`. CIBA §4: an
 * https URL (here also `http://` on a loopback host, which only a `ciba.ping.allowLoopback`
 * instance will call), without credentials or fragment. Where it may be called (its addresses) is
 * checked again by the guarded fetch at each call.
 */
export function notificationEndpointProblem(uri: unknown): string | undefined {
  if (typeof uri !== 'string' || uri.length === 0 || uri.length > MAX_ENDPOINT_LENGTH)
    return `must be an https URL of at most ${MAX_ENDPOINT_LENGTH} characters`;
  let url: URL;
  try {
    url = new URL(uri);
  } catch {
    return 'is not an absolute URL';
  }
  if (url.protocol !== 'https:' && !(url.protocol === 'http:' && isLoopbackHost(url.hostname)))
    return 'must be an https URL';
  if (url.username !== '' || url.password !== '') return 'must not carry credentials';
  if (url.hash !== '') return 'must not have a fragment';
  return undefined;
}

/**
 * Why a client's CIBA registration cannot work, or `undefined`: the mode must be one served, and a
 * ping client needs a notification endpoint (CIBA §4).
 */
export function backchannelRegistrationProblem(
  mode: unknown,
  endpoint: unknown,
): { readonly field: 'mode' | 'endpoint'; readonly problem: string } | undefined {
  if (mode !== undefined && !CIBA_DELIVERY_MODES.includes(mode as CibaDeliveryMode))
    return { field: 'mode', problem: `expected one of ${CIBA_DELIVERY_MODES.join(', ')}` };
  if (endpoint !== undefined) {
    const problem = notificationEndpointProblem(endpoint);
    if (problem) return { field: 'endpoint', problem };
  }
  if (mode === 'ping' && endpoint === undefined)
    return { field: 'endpoint', problem: 'is required in ping mode (CIBA §4)' };
  return undefined;
}
