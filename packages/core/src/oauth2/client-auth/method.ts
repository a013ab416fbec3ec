import type { ClientAuthentication } from '../../context.js';
import type { Params } from '../../http/form.js';
import type { ClientRecord, TokenEndpointAuthMethod } from '../../storage/types.js';

/** What a request presents for one client authentication method: at least the client it names. */
export interface PresentedClient {
  /** The `client_id` the credentials are for. */
  readonly clientId: string;
}

/**
 * One client authentication method (RFC 6749 §2.3, RFC 7591 §2 `token_endpoint_auth_method`), an
 * entry of the table in `methods.ts`. Authentication runs in two steps so that the rules of
 * §2.3 stay expressible whatever the method: {@link detect} sees which methods a request uses
 * (more than one at once: 400 `invalid_request`), then {@link verify} checks the credentials of the
 * one used against the client registered for exactly that method (any other: 401 `invalid_client`).
 */
export interface ClientAuthMethod<P extends PresentedClient = PresentedClient> {
  /** The registered name, as in `token_endpoint_auth_methods_supported`. */
  readonly name: TokenEndpointAuthMethod;
  /**
   * Whether the method proves who the client is (every method but `none`). Only those count as
   * client authentication where it is required (introspection, RFC 7662 §2.1), and a request
   * presenting one is not also using `none` by sending its `client_id` in the body.
   */
  readonly provesIdentity: boolean;
  /**
   * The body parameters that carry this method's credentials (`client_secret` for
   * `client_secret_post`, `client_assertion` and `client_assertion_type` for the JWT methods).
   */
  readonly bodyParameters: readonly string[];
  /**
   * The credentials the request presents for this method, or `undefined` when it does not use it.
   * Reads the request only (no store, no clock); throws 401 `invalid_client` when this method's
   * credentials are there but malformed.
   */
  detect(ctx: ClientAuthentication, request: Request, params: Params): P | undefined;
  /**
   * Whether `presented` proves to be `client`, the client registered for this method under
   * `presented.clientId`. With `client` undefined (unknown, or registered for another method) it
   * does the same work and resolves `false`, so that response times do not tell which ids exist.
   */
  verify(
    ctx: ClientAuthentication,
    presented: P,
    client: ClientRecord | undefined,
  ): Promise<boolean> | boolean;
}
