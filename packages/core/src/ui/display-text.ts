import { isSelfRegistered } from '../storage/self-registered.js';
import type { ClientRecord } from '../storage/types.js';

/*
 * Characters that change how the text around them is shown without being seen themselves: the
 * bidirectional controls (Unicode Standard Annex #9: U+061C, U+200E, U+200F, U+202A–U+202E,
 * U+2066–U+2069), with which a name can show text reversed ("Demo\u202Eelif" reads "Demofile"
 * backwards) or run over what the page puts after it; the invisible U+200B, U+2060–U+2064 and
 * U+FEFF, with which one name can look like another; and the C0/C1 controls. U+200C/U+200D
 * (needed by some scripts and emoji sequences) are kept.
 */
const HIDDEN =
  // biome-ignore lint/suspicious/noControlCharactersInRegex: removing control characters is the point.
  /[\u0000-\u001f\u007f-\u009f\u061c\u200b\u200e\u200f\u202a-\u202e\u2060-\u2064\u2066-\u2069\ufeff]/g;

/**
 * `text` as a page may show it: without bidirectional controls, invisible characters and control
 * characters. Applied to every name the pages display (client names, usernames, hosts), for the
 * built-in renderers and the host's alike.
 */
export function displayText(text: string): string {
  return text.replace(HIDDEN, '');
}

/** What the pages say about a client: its name, and whether and where it registered itself. */
export interface ClientDisplay {
  /** The client's name (or its id), as {@link displayText} shows it. */
  readonly clientName: string;
  /** Present for a client anyone could have created (RFC 7591, client ID metadata document). */
  readonly selfRegistered?: true;
  /** The host of the `client_id` URL, for a client ID metadata document client. */
  readonly clientHost?: string;
}

/**
 * How the login, consent and end-session pages name `client`. A self-registered client chose its
 * own name (it can copy a well-known one), so the page says it registered itself; for a client ID
 * metadata document, the host serving the document is what actually identifies it (the URL
 * parser gives the ASCII form of an internationalised name, so look-alike letters show as such).
 */
export function clientDisplay(client: ClientRecord): ClientDisplay {
  const clientName = displayText(client.name ?? client.id);
  if (!isSelfRegistered(client)) return { clientName };
  const host = documentHost(client.id);
  return { clientName, selfRegistered: true, ...(host === undefined ? {} : { clientHost: host }) };
}

/** The host of a client ID metadata document URL, or `undefined` when the id is no such URL. */
function documentHost(clientId: string): string | undefined {
  if (!/^https?:\/\//i.test(clientId)) return undefined;
  try {
    return new URL(clientId).host;
  } catch {
    return undefined;
  }
}
