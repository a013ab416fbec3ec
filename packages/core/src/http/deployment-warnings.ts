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
 * The origin of every request to the instance's routes is compared, as text (a prefix test), and
 * of every bearer check but those answered at once from the verified-token cache (whose URL is
 * never built); each other origin is warned about once, whenever its first request comes (a
 * health check at the issuer's origin does not hide a later mistake), and at most
 * {@link MAX_WARNED_ORIGINS} of them are remembered, since anyone can send any `Host`. A mount path
 * is compared on each request through an adapter, until one warning.
 */

/** Origins other than the issuer's warned about, per instance (docs/security.md); then no more. */
export const MAX_WARNED_ORIGINS = 16;

/** The warnings of one instance. */
export class DeploymentWarnings {
  /** The other origins warned about so far (at most {@link MAX_WARNED_ORIGINS}). */
  readonly #warnedOrigins = new Set<string>();
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

  /**
   * Compares a request's origin to the issuer's; warns the first time each other origin comes.
   * `requestUrl` is a request's URL as serialized (`Request.url`): its origin is the text before
   * the path (a `Request` has no user info in its URL).
   */
  checkOrigin(requestUrl: string): void {
    const issuerOrigin = this.issuerOrigin;
    // The common case, a request at the issuer's origin: one prefix test, nothing parsed.
    if (requestUrl.startsWith(issuerOrigin) && requestUrl.charCodeAt(issuerOrigin.length) === 47) return;
    const warned = this.#warnedOrigins;
    if (warned.size >= MAX_WARNED_ORIGINS) return;
    const pathStart = requestUrl.indexOf('/', requestUrl.indexOf('//') + 2);
    const origin = pathStart < 0 ? requestUrl : requestUrl.slice(0, pathStart);
    if (origin === issuerOrigin || warned.has(origin)) return;
    warned.add(origin);
    const last =
      warned.size === MAX_WARNED_ORIGINS
        ? ` (${MAX_WARNED_ORIGINS} origins other than the issuer's were warned about: further ones are not.)`
        : '';
    this.logger.warn(
      `gatehouse: a request arrived at ${recordedText(origin)}, but the issuer is ${this.issuer}: the metadata, ` +
        `redirects and tokens point at ${issuerOrigin}, which clients may not reach. Set the ` +
        'issuer to the public URL clients use. Behind a proxy (TLS termination, another host or ' +
        'port), let the framework trust it so the request URL is the public one (Express: ' +
        "app.set('trust proxy', …); Koa: app.proxy = true; Fastify: trustProxy), or pass the " +
        `public origin to the adapter.${last}`,
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
