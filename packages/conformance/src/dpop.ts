/**
 * DPoP (RFC 9449) as the client's side makes it: a key pair, proofs for each request (`htm`,
 * `htu`, `iat`, `jti`, `ath` for resource requests), the server's nonce remembered and retried once
 * when the server asks for one (§8), and proofs broken on purpose for the negative modules.
 */
import { base64url, calculateJwkThumbprint, exportJWK, generateKeyPair, type JWK, SignJWT } from 'jose';
import type { HttpAnswer, ModuleContext, RequestOptions } from './context.js';

/** Changes a module makes to a proof to see it refused (or accepted). */
export interface ProofOptions {
  /** Seconds added to `iat` (negative: in the past). */
  readonly iatShift?: number;
  /** Members replaced (`htm`, `htu`, `typ` in the header…) or removed (`undefined`). */
  readonly claims?: Record<string, unknown>;
  readonly header?: Record<string, unknown>;
  /** Sign with this key instead (a proof whose `jwk` is not the signing key). */
  readonly signWith?: CryptoKey;
  /** Add `nbf`/`exp` (FAPI2SPFinalCheckDpopProofNbfExp). */
  readonly nbfExp?: { nbf: number; exp: number };
}

export class DpopKey {
  private nonce: string | undefined;

  private constructor(
    readonly privateKey: CryptoKey,
    readonly publicJwk: JWK,
    /** RFC 7638 thumbprint of the public key: the `dpop_jkt` and `cnf.jkt` value. */
    readonly thumbprint: string,
  ) {}

  static async generate(alg = 'ES256'): Promise<DpopKey> {
    const { privateKey, publicKey } = await generateKeyPair(alg, { extractable: true });
    const jwk = await exportJWK(publicKey);
    return new DpopKey(privateKey as CryptoKey, jwk, await calculateJwkThumbprint(jwk));
  }

  /** A proof for `method` `url` (RFC 9449 §4.2); `accessToken` adds `ath` (§4.2, resource requests). */
  async proof(
    method: string,
    url: string,
    accessToken?: string,
    options: ProofOptions = {},
  ): Promise<string> {
    const now = Math.floor(Date.now() / 1000) + (options.iatShift ?? 0);
    const htu = url.split(/[?#]/)[0];
    const payload: Record<string, unknown> = {
      jti: base64url.encode(crypto.getRandomValues(new Uint8Array(16))),
      htm: method,
      htu,
      iat: now,
      ...(this.nonce ? { nonce: this.nonce } : {}),
      ...(accessToken
        ? {
            ath: base64url.encode(
              new Uint8Array(await crypto.subtle.digest('SHA-256', new TextEncoder().encode(accessToken))),
            ),
          }
        : {}),
      ...options.nbfExp,
      ...options.claims,
    };
    for (const [name, value] of Object.entries(payload)) if (value === undefined) delete payload[name];
    const header = { typ: 'dpop+jwt', alg: 'ES256', jwk: this.publicJwk, ...options.header };
    for (const [name, value] of Object.entries(header))
      if (value === undefined) delete (header as Record<string, unknown>)[name];
    return new SignJWT(payload).setProtectedHeader(header as never).sign(options.signWith ?? this.privateKey);
  }

  /**
   * Sends a request with a fresh proof; when the server answers `use_dpop_nonce` (RFC 9449 §8,
   * §9) with a `DPoP-Nonce`, remembers it and sends once more with it.
   */
  async send(
    t: ModuleContext,
    method: string,
    url: string,
    options: RequestOptions & { accessToken?: string; proof?: ProofOptions } = {},
  ): Promise<HttpAnswer> {
    const attempt = async () =>
      t.request(method, url, {
        ...options,
        headers: {
          ...options.headers,
          dpop: await this.proof(method, url, options.accessToken, options.proof),
          ...(options.accessToken ? { authorization: `DPoP ${options.accessToken}` } : {}),
        },
      });
    let answer = await attempt();
    const nonce = answer.headers.get('dpop-nonce');
    if (nonce) this.nonce = nonce;
    const error = (answer.json as { error?: string } | undefined)?.error;
    const challenge = answer.headers.get('www-authenticate') ?? '';
    if (nonce && (error === 'use_dpop_nonce' || /use_dpop_nonce/.test(challenge))) {
      answer = await attempt();
      const next = answer.headers.get('dpop-nonce');
      if (next) this.nonce = next;
    }
    return answer;
  }
}
