import type { Context } from '../../context.js';
import { base64url, utf8 } from '../../crypto/encoding.js';
import type { ClientRecord } from '../../storage/types.js';
import { freshKeySet } from '../../tokens/keys.js';
import { idTokenAlgorithm } from '../id-token.js';

/** The member of `events` that makes a JWT a logout token (Back-Channel Logout 1.0 §2.4). */
export const BACKCHANNEL_LOGOUT_EVENT = 'http://schemas.openid.net/event/backchannel-logout';

/** The `typ` of a logout token (Back-Channel Logout 1.0 §2.4 and §4.1: explicit typing). */
export const LOGOUT_TOKEN_TYPE = 'logout+jwt';

/** What a logout token says: who ended which session, for which client. */
export interface LogoutTokenContent {
  readonly client: ClientRecord;
  /** The user: `sub`, as in the client's ID tokens. */
  readonly userId: string;
  /** The session: `sid`, as in the client's ID tokens. */
  readonly sid: string;
  /** Lifetime, in seconds (`exp` - `iat`). */
  readonly ttl: number;
}

/**
 * Signs a logout token (OpenID Connect Back-Channel Logout 1.0 §2.4): header `alg` (the client's ID
 * token algorithm, §2.6 step 3: a relying party validates it as it validates ID tokens), `typ:
 * logout+jwt`, `kid`; claims `iss`, `sub`, `aud` (the client), `iat`, `exp` (short, §4), a fresh
 * `jti`, `events` with the back-channel logout member, and `sid`. Never `nonce` (§2.4: so that it
 * cannot pass for an ID token). Returns `undefined` when the instance holds no key of that algorithm.
 */
export async function signLogoutToken(
  ctx: Pick<Context, 'issuer' | 'keys' | 'clock' | 'randomBytes'>,
  content: LogoutTokenContent,
): Promise<string | undefined> {
  let keys = freshKeySet(ctx.keys);
  if (keys instanceof Promise) keys = await keys;
  const algorithm = idTokenAlgorithm(keys, content.client);
  const signer = keys.signers.get(algorithm);
  if (!signer) return undefined;
  const iat = Math.floor(ctx.clock.now() / 1000);
  const payload = {
    iss: ctx.issuer,
    sub: content.userId,
    aud: content.client.id,
    iat,
    exp: iat + content.ttl,
    jti: base64url(ctx.randomBytes(16)),
    events: { [BACKCHANNEL_LOGOUT_EVENT]: {} },
    sid: content.sid,
  };
  const header = { alg: algorithm, typ: LOGOUT_TOKEN_TYPE, kid: signer.kid };
  const signingInput = `${base64url(utf8(JSON.stringify(header)))}.${base64url(utf8(JSON.stringify(payload)))}`;
  return `${signingInput}.${await signer.sign(signingInput)}`;
}
