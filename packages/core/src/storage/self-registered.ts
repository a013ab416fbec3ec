import type { ClientRecord } from './types.js';

/**
 * Carried by a client record the instance registered itself (RFC 7591 dynamic registration, a
 * client ID metadata document) rather than one of the host's `ClientStore`. A symbol, so that no
 * store, registration or document can set it: only {@link markSelfRegistered} does, in the client
 * directory. Spread copies of the record keep it.
 */
const SELF_REGISTERED: unique symbol = Symbol('gatehouse.selfRegistered');

type Marked = ClientRecord & { readonly [SELF_REGISTERED]?: true };

/** `client`, marked as registered by anyone rather than by the host (see {@link isSelfRegistered}). */
export function markSelfRegistered(client: ClientRecord): ClientRecord {
  const marked: Marked = { ...client, [SELF_REGISTERED]: true };
  return marked;
}

/**
 * Whether anyone could have created this client: its name, redirect URIs and keys are whatever
 * its creator chose. Such a client gets no silent error redirects (RFC 9700 §4.11.2) and is
 * labelled as such on the login and consent pages.
 */
export function isSelfRegistered(client: ClientRecord): boolean {
  return (client as Marked)[SELF_REGISTERED] === true;
}
