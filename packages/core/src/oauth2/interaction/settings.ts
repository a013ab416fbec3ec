import type { Awaitable } from '../../awaitable.js';
import { ConfigurationError } from '../../errors.js';
import { withHostRequest } from '../../http/host-request.js';
import type { InteractionOptions } from '../../options.js';
import type { HostUser } from './types.js';

/** The `interactions` options, resolved (`ctx.interactions`). */
export interface InteractionSettings {
  /**
   * The host's page for sign-in and consent (same origin as the issuer); absent: the built-in login
   * and consent pages are the interaction handlers (`{base}/login`, `{base}/consent`).
   */
  readonly url: URL | undefined;
  /** The host's signed-in user of a request (`interactions.currentUser`), when given. */
  readonly currentUser: ((request: Request) => Awaitable<HostUser | null | undefined>) | undefined;
  /** Lifetime of an interaction reference, in seconds. */
  readonly ttl: number;
  /** Interactions one client network may start per `ttl` (each stores a record until it expires). */
  readonly maxPerNetwork: number;
  /** The browser-binding cookie: `{session.cookieName}_interaction`. */
  readonly cookieName: string;
  /** Its `Path`: the longest path prefix shared by the instance and the host's page, so it reaches both. */
  readonly cookiePath: string;
}

/** Checks the `interactions` options (at creation: mistakes throw there). */
export function resolveInteractions(
  options: InteractionOptions | undefined,
  issuer: URL,
  basePath: string,
  sessionCookieName: string,
): InteractionSettings {
  const given = options ?? {};
  if (typeof given !== 'object' || given === null)
    throw new ConfigurationError('interactions: expected an object.', {
      code: 'ERR_CONFIG_INVALID_OPTION',
      option: 'interactions',
    });
  let url: URL | undefined;
  if (given.url !== undefined) {
    try {
      url = new URL(given.url, issuer.origin);
    } catch {
      throw new ConfigurationError(`interactions.url: "${String(given.url)}" is not a URL or a path.`, {
        code: 'ERR_CONFIG_INVALID_OPTION',
        option: 'interactions.url',
      });
    }
    if (url.origin !== issuer.origin || url.hash !== '') {
      throw new ConfigurationError(
        `interactions.url: must be on the issuer's origin ${issuer.origin} (a path such as "/login"), without a fragment: ` +
          'the browser-binding cookie only reaches pages of that origin.',
        { code: 'ERR_CONFIG_INVALID_OPTION', option: 'interactions.url' },
      );
    }
  }
  if (given.currentUser !== undefined && typeof given.currentUser !== 'function')
    throw new ConfigurationError('interactions.currentUser: expected a function (request) => user | null.', {
      code: 'ERR_CONFIG_INVALID_OPTION',
      option: 'interactions.currentUser',
    });
  const ttl = given.ttl ?? 600;
  if (!Number.isInteger(ttl) || ttl < 30 || ttl > 3600)
    throw new ConfigurationError(
      `interactions.ttl: expected a whole number of seconds between 30 and 3600, got ${String(given.ttl)}.`,
      { code: 'ERR_CONFIG_INVALID_OPTION', option: 'interactions.ttl' },
    );
  const maxPerNetwork = given.maxPerNetwork ?? 30;
  if (!Number.isInteger(maxPerNetwork) || maxPerNetwork < 1)
    throw new ConfigurationError(
      `interactions.maxPerNetwork: expected a whole number of at least 1, got ${String(given.maxPerNetwork)}.`,
      { code: 'ERR_CONFIG_INVALID_OPTION', option: 'interactions.maxPerNetwork' },
    );
  return {
    url,
    // Host code gets a platform `Request`, never the Node bridge's light one (http/host-request.ts).
    currentUser: given.currentUser && withHostRequest(given.currentUser),
    ttl,
    maxPerNetwork,
    cookieName: `${sessionCookieName}_interaction`,
    cookiePath: commonPath(basePath, url?.pathname ?? basePath),
  };
}

/** The longest whole-segment path prefix of two paths (`/a/b` and `/a/c` → `/a`), `/` at least. */
function commonPath(a: string, b: string): string {
  const left = a.split('/').filter(Boolean);
  const right = b.split('/').filter(Boolean);
  const shared: string[] = [];
  for (let i = 0; i < left.length && i < right.length && left[i] === right[i]; i++) shared.push(left[i]!);
  return `/${shared.join('/')}`;
}
