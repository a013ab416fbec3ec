import { calculateJwkThumbprint, exportJWK, generateKeyPair, type JWK, SignJWT } from 'jose';

/** A client's DPoP key pair (RFC 9449), its public JWK and thumbprint. */
export interface DpopTestKey {
  readonly alg: string;
  readonly privateKey: CryptoKey;
  readonly jwk: JWK;
  readonly jkt: string;
}

/** A fresh DPoP key of `alg`. */
export async function dpopKey(alg = 'ES256'): Promise<DpopTestKey> {
  const { privateKey, publicKey } = await generateKeyPair(alg, { extractable: true });
  const jwk = await exportJWK(publicKey);
  return { alg, privateKey, jwk, jkt: await calculateJwkThumbprint(jwk) };
}

/** base64url SHA-256 of a token (the proof's `ath`). */
export async function ath(token: string): Promise<string> {
  const digest = new Uint8Array(await crypto.subtle.digest('SHA-256', new TextEncoder().encode(token)));
  return btoa(String.fromCharCode(...digest))
    .replace(/\+/g, '-')
    .replace(/\//g, '_')
    .replace(/=+$/, '');
}

/**
 * A DPoP proof JWT for `htm` and `htu` at epoch-ms `now`, with claims and header fields replaced
 * or added by `claims` and `header` (`undefined` removes one).
 */
export async function dpopProof(
  key: DpopTestKey,
  htm: string,
  htu: string,
  now: number,
  claims: Record<string, unknown> = {},
  header: Record<string, unknown> = {},
): Promise<string> {
  const payload = Object.fromEntries(
    Object.entries({ htm, htu, iat: Math.floor(now / 1000), jti: crypto.randomUUID(), ...claims }).filter(
      ([, v]) => v !== undefined,
    ),
  );
  const protectedHeader = Object.fromEntries(
    Object.entries({ alg: key.alg, typ: 'dpop+jwt', jwk: key.jwk, ...header }).filter(
      ([, v]) => v !== undefined,
    ),
  );
  return new SignJWT(payload).setProtectedHeader(protectedHeader as { alg: string }).sign(key.privateKey);
}
