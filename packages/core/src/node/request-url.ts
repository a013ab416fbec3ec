/** The public URL of a Node request, rebuilt from the host's view of origin and mount path. */
import type { IncomingMessage } from 'node:http';

/**
 * The URL the client asked for. Concatenated, never resolved: a target like `//evil.example/x` is a
 * path here, not a protocol-relative URL. An absolute-form target (RFC 9112 §3.2.2) keeps only its
 * path and query. The origin must be exactly scheme://host[:port]: a `Host` header carrying a path,
 * query, fragment or credentials (Node lets `/`, `?`, `#` through) would otherwise move the request
 * to another route than the one the host's own middleware saw; such an origin, or a malformed one,
 * falls back to `http://localhost`. For the same reason dot segments (`/x/../token`) are kept, not
 * resolved: the host routed on the raw path, so Gatehouse must not see another one.
 */
export function requestUrl(origin: string, mountPath: string, target: string): URL {
  let pathAndQuery = target;
  if (!target.startsWith('/')) {
    try {
      const absolute = new URL(target);
      pathAndQuery = absolute.pathname + absolute.search;
    } catch {
      pathAndQuery = `/${target}`;
    }
  }
  return new URL(safeOrigin(origin) + mountPath + keepDotSegments(pathAndQuery));
}

/** `.`, `..` and their percent-encoded forms, as whole path segments (WHATWG URL resolves them). */
const DOT_SEGMENT = /(^|\/)(?:\.|%2e)(?:\.|%2e)?(?=\/|\?|#|$)/gi;

/** Escapes dot segments of the path (not the query) so that `new URL` leaves them in place. */
function keepDotSegments(pathAndQuery: string): string {
  const query = pathAndQuery.indexOf('?');
  const path = query < 0 ? pathAndQuery : pathAndQuery.slice(0, query);
  const escaped = path.replace(
    DOT_SEGMENT,
    (segment, slash: string) => slash + segment.slice(slash.length).replace(/\.|%2e/gi, '%252E'),
  );
  return query < 0 ? escaped : escaped + pathAndQuery.slice(query);
}

/** `origin` when it is a bare origin (scheme://host[:port]), else `http://localhost`. */
function safeOrigin(origin: string): string {
  const separator = origin.indexOf('://');
  if (separator > 0 && !/[/?#@\\\s]/.test(origin.slice(separator + 3))) {
    try {
      const parsed = new URL(origin);
      if (parsed.protocol === 'http:' || parsed.protocol === 'https:') return parsed.origin;
    } catch {
      // Malformed: fall through.
    }
  }
  return 'http://localhost';
}

export function defaultOrigin(req: IncomingMessage): string {
  const encrypted = (req.socket as { encrypted?: boolean } | undefined)?.encrypted === true;
  const host = req.headers.host ?? req.headers[':authority'] ?? 'localhost';
  return `${encrypted ? 'https' : 'http'}://${host}`;
}
