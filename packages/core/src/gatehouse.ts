import type { Context } from './context.js';
import { ProtocolError } from './errors.js';
import { type Route, Router } from './http/router.js';
import { authorizationServerMetadata } from './oauth2/metadata.js';
import { oauth2Routes } from './oauth2/routes.js';
import type { GatehouseOptions } from './options.js';
import { resolveOptions, toContext } from './resolve-options.js';
import { importKeySet } from './tokens/keys.js';

/** One Gatehouse instance (one issuer). */
export interface Gatehouse {
  /** `{base_url}`, e.g. `http://localhost:3000/demo`. */
  readonly issuer: string;
  /** The instance path, e.g. `/demo` (empty for an issuer at the origin root). */
  readonly basePath: string;
  /**
   * Answers every Gatehouse route below {@link basePath}, plus the RFC 8414 metadata at
   * `/.well-known/oauth-authorization-server{basePath}`. Unknown paths get 404 JSON. Never rejects:
   * bad input gets a 4xx, a failing store a 503, a bug a bare 500.
   */
  fetch(request: Request): Promise<Response>;
  /** Whether {@link fetch} has a route for this URL (adapters use it to fall through to the host). */
  handles(url: URL | string): boolean;
  /** Resolves once keys are imported; rejects with the configuration problem if they cannot be. */
  ready(): Promise<void>;
  /** The RFC 8414 metadata document. */
  metadata(): Record<string, unknown>;
}

/** Creates an instance. Throws `ConfigurationError` for unusable options. */
export function createGatehouse(options: GatehouseOptions): Gatehouse {
  const resolved = resolveOptions(options);
  const contextPromise: Promise<Context> = importKeySet(options.keys, options.algorithm ?? 'ES256').then((keys) =>
    toContext(resolved, keys),
  );
  contextPromise.catch((error) => resolved.logger.error('gatehouse: keys could not be imported', error));
  const routes: Route[] = [...oauth2Routes(resolved)];
  const router = new Router(routes);
  const rootMetadataPath = `/.well-known/oauth-authorization-server${resolved.basePath}`;

  const relativePath = (pathname: string): string | undefined => {
    if (resolved.basePath === '') return pathname;
    if (pathname === resolved.basePath) return '/';
    return pathname.startsWith(`${resolved.basePath}/`) ? pathname.slice(resolved.basePath.length) : undefined;
  };

  const answer = async (request: Request): Promise<Response> => {
    let url: URL;
    try {
      url = new URL(request.url);
    } catch {
      throw new ProtocolError('invalid_request', 'The request URL is not valid.');
    }
    const ctx = await contextPromise;
    if (url.pathname === rootMetadataPath && resolved.basePath !== '') {
      return router.dispatch('/.well-known/oauth-authorization-server', request, ctx, url);
    }
    const path = relativePath(url.pathname);
    if (path === undefined) throw new ProtocolError('not_found', 'No such endpoint.', { status: 404 });
    return router.dispatch(path, request, ctx, url);
  };

  return {
    issuer: resolved.issuer,
    basePath: resolved.basePath,
    async fetch(request) {
      try {
        return await answer(request);
      } catch (error) {
        if (error instanceof ProtocolError) {
          if (error.status >= 500) resolved.logger.error(`gatehouse: ${error.description}`, error.cause);
          return error.toResponse();
        }
        resolved.logger.error('gatehouse: unexpected error', error);
        return new ProtocolError('server_error', 'The server could not complete the request.', { status: 500 }).toResponse();
      }
    },
    handles(input) {
      const url = typeof input === 'string' ? new URL(input) : input;
      if (url.pathname === rootMetadataPath) return true;
      const path = relativePath(url.pathname);
      return path !== undefined && router.has(path);
    },
    async ready() {
      await contextPromise;
    },
    metadata() {
      return authorizationServerMetadata(resolved);
    },
  };
}
