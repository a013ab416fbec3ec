import type { Awaitable } from '../awaitable.js';
import type { Context } from '../context.js';
import { currentNonce } from '../dpop/nonce.js';
import {
  checkDpopProof,
  type DpopProof,
  type DpopRefusal,
  dpopHeader,
  isRefusal,
  type ProofContext,
  requestHtus,
} from '../dpop/proof.js';
import { invalidRequest, oauthError, type ProtocolError } from '../errors.js';
import { clientWritePartition } from '../http/address-rate-limit.js';
import type { AuthenticatedClient } from './client-auth/authenticate-client.js';
import { CLIENT_AUTH_METHODS } from './client-auth/methods.js';

/**
 * The DPoP proof of a request to the token or the pushed authorization request endpoint (RFC 9449
 * §5, §10.1), checked against the request's method and its path at the issuer's origin (never the
 * `Host` the request names, see `requestHtus`): `undefined` without a `DPoP` header
 * (refused with `invalid_request` for a client registered with `dpopBoundAccessTokens`, §5.2.1).
 * A bad proof is 400 `invalid_dpop_proof`; a missing or stale server nonce (when nonces are
 * required at the token endpoint, or whenever a proof sends one) is 400 `use_dpop_nonce` with a
 * fresh `DPoP-Nonce` (§8). A request without the header (most of them) is answered at once, with
 * no promise: only a proof to check is asynchronous.
 */
export function tokenRequestProof(
  ctx: TokenProofContext,
  dpop: ProofContext,
  request: Request,
  authenticated: AuthenticatedClient,
  requireProof = authenticated.client.dpopBoundAccessTokens === true || dpop.settings.requiredForAll,
): Awaitable<DpopProof | undefined> {
  const header = dpopHeader(request);
  if (header === undefined) {
    if (requireProof)
      throw invalidRequest("This client's access tokens are DPoP-bound: send a DPoP proof (RFC 9449).");
    return undefined;
  }
  if (header === null) throw oauthError('invalid_dpop_proof', 'Send exactly one DPoP header.');
  return checkedProof(ctx, dpop, request, header, authenticated);
}

/** What the token endpoint's proof check reads of the instance. */
type TokenProofContext = Pick<Context, 'site' | 'limits'>;

/** The proof of a request that sent exactly one DPoP header, checked (see {@link tokenRequestProof}). */
async function checkedProof(
  ctx: TokenProofContext,
  dpop: ProofContext,
  request: Request,
  header: string,
  { client, method }: AuthenticatedClient,
): Promise<DpopProof> {
  const outcome = await checkDpopProof(dpop, request, header, {
    htu: requestHtus([ctx.site.origin], request),
    requireNonce: dpop.settings.requireNonce !== 'off',
    // Its proof ids are charged to the client, or to its caller's network when the client proves
    // nothing or anyone could have registered it (docs/security.md, "Stored state").
    payer: await clientWritePartition(
      ctx,
      request,
      client,
      CLIENT_AUTH_METHODS[method]?.provesIdentity === true,
    ),
  });
  if (isRefusal(outcome)) throw await tokenEndpointRefusal(dpop, outcome);
  return outcome;
}

/** The 400 answer of a refused proof at the token endpoint (§5, §8). */
async function tokenEndpointRefusal(ctx: ProofContext, refusal: DpopRefusal): Promise<ProtocolError> {
  return oauthError(
    refusal.error,
    refusal.description,
    refusal.error === 'use_dpop_nonce' ? { dpopNonce: await currentNonce(ctx) } : {},
  );
}
