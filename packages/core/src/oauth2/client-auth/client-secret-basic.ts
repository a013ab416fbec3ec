import { invalidClient } from '../../errors.js';
import { type BasicCredentials, parseBasicAuth } from '../../http/basic-auth.js';
import { verifyClientSecret } from './client-secret.js';
import type { ClientAuthMethod, PresentedClient } from './method.js';

/** What the methods carrying the client secret itself present. */
export interface PresentedSecret extends PresentedClient {
  readonly secret: string;
}

/**
 * `client_secret_basic` (RFC 6749 §2.3.1): HTTP Basic with the form-urlencoded client id and
 * secret. A malformed Basic header is a failed client authentication: 401 `invalid_client` with
 * the challenge (§5.2). The secret is compared by its SHA-256 hash, in constant time.
 */
export const clientSecretBasic: ClientAuthMethod<PresentedSecret> = {
  name: 'client_secret_basic',
  provesIdentity: true,
  bodyParameters: [],
  detect(ctx, request) {
    let credentials: BasicCredentials | null;
    try {
      credentials = parseBasicAuth(request.headers.get('authorization'), { formEncoded: true });
    } catch {
      throw invalidClient(ctx.issuer);
    }
    return credentials ? { clientId: credentials.username, secret: credentials.password } : undefined;
  },
  verify: (ctx, presented, client) => verifyClientSecret(ctx, presented.secret, client),
};
