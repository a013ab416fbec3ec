import type { Logger } from '../events.js';
import { recordedText } from '../recorded-text.js';

/*
 * Deployment mistakes that would otherwise go unnoticed (issue 32), each logged once per instance
 * with `logger.warn`:
 *
 * - a request whose origin is not the issuer's: the metadata, the redirects and every token's `iss`
 *   name the issuer (RFC 8414 §3.3: the issuer must be the URL the metadata was fetched from), so a
 *   server reached at another port or host hands clients addresses that point elsewhere;
 * - an instance reached at a path none of its routes lies under: mounted (or routed to) at a path
 *   other than its issuer path, every request falls through to the framework's own 404.
 *
 * Only the first request's origin is compared (then a boolean: the bearer check's cost is
 * unchanged); a mount path is compared on each request through an adapter, until one warning.
 */

/** The warnings of one instance. */
export class DeploymentWarnings {
  /** Whether a request's origin was compared to the issuer's (only the first one is). */
  originChecked = false;
  #strayWarned = false;
  /** The last mount path found to reach a route (adapters pass the same string on every request). */
  #mountFits = '';

  constructor(
    private readonly issuer: string,
    private readonly issuerOrigin: string,
    private readonly basePath: string,
    private readonly logger: Logger,
    /** Whether any route of the instance lies at `prefix` or below it. */
    private readonly reaches: (prefix: string) => boolean,
  ) {}

  /** Compares the first request's origin to the issuer's; warns when they differ. */
  checkOrigin(requestUrl: URL | string): void {
    if (this.originChecked) return;
    this.originChecked = true;
    let origin: string;
    try {
      origin = (typeof requestUrl === 'string' ? new URL(requestUrl) : requestUrl).origin;
    } catch {
      return; // the request itself is refused for its URL
    }
    if (origin === this.issuerOrigin) return;
    this.logger.warn(
      `gatehouse: a request arrived at ${origin}, but the issuer is ${this.issuer}: the metadata, ` +
        `redirects and tokens point at ${this.issuerOrigin}, which clients may not reach. Set the ` +
        'issuer to the public URL clients use. Behind a proxy (TLS termination, another host or ' +
        'port), let the framework trust it so the request URL is the public one (Express: ' +
        "app.set('trust proxy', …); Koa: app.proxy = true; Fastify: trustProxy), or pass the " +
        'public origin to the adapter.',
    );
  }

  /**
   * A request for `pathname` found no route: warns when the path is outside the instance (not
   * below the issuer path, not a `/.well-known/` location), i.e. the instance is routed to at a
   * path other than its issuer path.
   */
  strayRequest(pathname: string): void {
    if (this.#strayWarned || this.basePath === '') return;
    const base = this.basePath;
    if (pathname === base || pathname.startsWith(`${base}/`) || pathname.startsWith('/.well-known/')) return;
    this.#strayWarned = true;
    this.logger.warn(
      `gatehouse: a request for ${recordedText(pathname)} reached the instance of issuer ${this.issuer}, ` +
        `whose routes are all below ${base}: serve the instance at its issuer path (e.g. a route ` +
        `handler at ${base}/…) or set the issuer to the URL it is served at. (If this route serves ` +
        'other paths on purpose, ignore this warning.)',
    );
  }

  /**
   * An adapter mounted the instance at `mountPath` (the prefix the framework strips, e.g. Express's
   * `req.baseUrl`): warns when no route of the instance lies at or below it, so that every request
   * there falls through to the framework's 404 ("Cannot GET").
   */
  mountedAt(mountPath: string): void {
    if (mountPath === this.#mountFits || this.#strayWarned) return;
    const prefix = mountPath.replace(/\/+$/, '');
    if (prefix === '' || this.reaches(prefix)) {
      this.#mountFits = mountPath;
      return;
    }
    this.#strayWarned = true;
    this.logger.warn(
      `gatehouse: the instance of issuer ${this.issuer} is mounted at ${recordedText(mountPath)}, but its ` +
        `routes are below ${this.basePath || '/'}: every request there falls through to the framework's 404. ` +
        `Mount it at its issuer path (Express: app.use('${this.basePath || '/'}', gatehouse(instance)); ` +
        "for the RFC 8414 metadata also at '/.well-known') or set the issuer to the URL it is served at.",
    );
  }
}
