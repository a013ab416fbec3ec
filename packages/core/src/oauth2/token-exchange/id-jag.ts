import type { Context } from '../../context.js';
import { base64url, utf8 } from '../../crypto/encoding.js';
import { toEpochSeconds } from '../../time.js';
import { freshKeySet } from '../../tokens/keys.js';

/**
 * The `typ` of an identity assertion JWT authorization grant (draft-ietf-oauth-identity-assertion-authz-grant
 * §3), distinct from every other JWT this instance signs (RFC 8725 §3.11), so that an ID-JAG cannot
 * pass for an access or ID token, nor one of them for an ID-JAG.
 */
export const ID_JAG_TYP = 'oauth-id-jag+jwt';

/** What goes into an ID-JAG. */
export interface IdJagContent {
  /** The user (`sub`). */
  readonly sub: string;
  /** The issuer of the authorization server it is for (`aud`). */
  readonly audience: string;
  /** The client's id at that authorization server (`client_id`). */
  readonly clientId: string;
  /** Resources at that server (`resource`), when asked for. */
  readonly resource: readonly string[];
  /** Space-separated scopes at that server (`scope`); omitted when empty. */
  readonly scope: string;
  /** Lifetime, in seconds. */
  readonly ttl: number;
  /** Claims of the user's authentication, copied from the ID token (`auth_time`, `acr`, `amr`). */
  readonly authentication: Readonly<Record<string, unknown>>;
}

/**
 * Signs an ID-JAG (draft-ietf-oauth-identity-assertion-authz-grant §3, §4.3.1) with the instance's
 * access token key: header `typ: oauth-id-jag+jwt` and `kid`; claims `iss`, `sub`, `aud`,
 * `client_id`, `jti`, `iat`, `exp`, and `resource`, `scope`, `auth_time`, `acr`, `amr` when known.
 * The authorization server verifies it with the instance's published keys (its JWKS).
 */
export async function signIdJag(
  ctx: Pick<Context, 'keys' | 'clock' | 'issuer' | 'randomBytes'>,
  content: IdJagContent,
): Promise<string> {
  const keys = await freshKeySet(ctx.keys);
  const signer = keys.signers.get(keys.algorithm)!;
  const iat = toEpochSeconds(ctx.clock.now());
  const payload: Record<string, unknown> = {
    iss: ctx.issuer,
    sub: content.sub,
    aud: content.audience,
    client_id: content.clientId,
    jti: base64url(ctx.randomBytes(16)),
    iat,
    exp: iat + content.ttl,
  };
  if (content.resource.length > 0)
    payload.resource = content.resource.length === 1 ? content.resource[0] : content.resource;
  if (content.scope !== '') payload.scope = content.scope;
  for (const name of ['auth_time', 'acr', 'amr'] as const) {
    if (content.authentication[name] !== undefined) payload[name] = content.authentication[name];
  }
  const header = { alg: signer.algorithm, typ: ID_JAG_TYP, kid: signer.kid };
  const signingInput = `${base64url(utf8(JSON.stringify(header)))}.${base64url(utf8(JSON.stringify(payload)))}`;
  return `${signingInput}.${await signer.sign(signingInput)}`;
}
