import { Reply } from '../http/reply.js';
import { noStore } from '../http/responses.js';

/** Options of {@link htmlPage}. */
export interface HtmlPageOptions {
  /** HTTP status. Default 200. */
  readonly status?: number;
  /**
   * Origins (or `scheme:` sources) the page's forms may end up at besides the instance itself.
   * Chromium applies CSP `form-action` to every redirect after a form submission (CSP3 §6.3.1.3),
   * so the login and consent pages, whose POST ends in a redirect to the client, name its origin.
   */
  readonly formTargets?: readonly string[];
  /** Extra headers (`Set-Cookie`, `Retry-After`, …). */
  readonly headers?: HeadersInit;
  /** Origins images may come from besides the instance and `data:` (a logo on a CDN, `ui.logoUrl`). */
  readonly imageSources?: readonly string[];
  /** What the host's pages load from elsewhere (`ui.contentSecurityPolicy`), by directive. */
  readonly sources?: Readonly<
    Partial<Record<'style-src' | 'font-src' | 'script-src' | 'img-src' | 'connect-src', readonly string[]>>
  >;
}

/**
 * The CSP source for where a redirect URI lives: its origin for http(s), its scheme for private-use
 * URI schemes (RFC 8252 §7.1). Parsed by `URL`, so it cannot smuggle CSP syntax.
 */
export function formTargetSource(uri: string): string | undefined {
  let url: URL;
  try {
    url = new URL(uri);
  } catch {
    return undefined;
  }
  if (url.protocol === 'http:' || url.protocol === 'https:') return url.origin;
  return /^[a-z][a-z0-9+.-]*:$/i.test(url.protocol) ? url.protocol : undefined;
}

/**
 * An HTML page with the security headers every Gatehouse page has: never cached; a CSP that allows
 * nothing but inline styles, same-origin images (and the logo's origin) and forms to the instance (no scripts, no
 * third-party resources); no framing (CSP `frame-ancestors` plus `X-Frame-Options` for old
 * browsers: clickjacking); no MIME sniffing; and `Referrer-Policy: same-origin`, which leaks nothing
 * cross-origin yet lets the page's own form POST carry a real `Origin` (under `no-referrer`
 * browsers send `Origin: null`).
 */
export function htmlPage(html: string, options: HtmlPageOptions = {}): Reply {
  const headers = new Headers(options.headers);
  const formAction = ["'self'", ...(options.formTargets ?? [])].join(' ');
  const extra = options.sources ?? {};
  const imageSources = ["'self'", 'data:', ...(options.imageSources ?? []), ...(extra['img-src'] ?? [])].join(
    ' ',
  );
  const styleSources = ["'unsafe-inline'", ...(extra['style-src'] ?? [])].join(' ');
  // Added directives only ever allow named origins: default-src 'none', framing and base stay shut.
  const added = (['font-src', 'script-src', 'connect-src'] as const)
    .filter((directive) => (extra[directive]?.length ?? 0) > 0)
    .map((directive) => `; ${directive} ${extra[directive]!.join(' ')}`)
    .join('');
  headers.set('Content-Type', 'text/html;charset=UTF-8');
  noStore(headers);
  headers.set(
    'Content-Security-Policy',
    `default-src 'none'; style-src ${styleSources}; img-src ${imageSources}${added}; form-action ${formAction}; frame-ancestors 'none'; base-uri 'none'`,
  );
  headers.set('X-Frame-Options', 'DENY');
  headers.set('X-Content-Type-Options', 'nosniff');
  headers.set('Referrer-Policy', 'same-origin');
  return new Reply(options.status ?? 200, headers, html);
}
