import { exchangeCodeIn, exchangeRefreshTokenIn } from '../storage/grant-exchange.js';
import type { AuthorizationCodeRecord, CodeExchange, RefreshTokenRecord } from '../storage/types.js';
import type { CaseContext } from './conformance-api.js';
import { baseTime, codeRecord, freshHash, freshId, KEEP_CONSUMED_CODE_MS, refreshRecord } from './records.js';

/** The PKCE pair of the kit's codes (RFC 7636 Appendix B): the challenge is the verifier's digest. */
const CHALLENGE = 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM';
const JKT = '0ZcOCORZNYy-DWpqq30jZyJGHTN0d2HglBV3uiguA4I';
const OTHER_JKT = 'aL8SOcTGt5tlaOxZeVhqxVJdmy1dXt3UZ9qPVVKaBzQ';

/** Extension values of every JSON kind, nested: an exchange copies them as given. */
const EXT = {
  string: 'é ✓ "quoted" ,"ext":{',
  number: 1.5,
  flag: false,
  none: null,
  list: [1, 'two'],
  nested: { a: { b: [] } },
};

/** An exchange that every check of the kit's code passes. */
function matching(
  code: AuthorizationCodeRecord,
  now: number,
  extra: Partial<CodeExchange> = {},
): CodeExchange {
  return {
    clientId: code.clientId,
    redirectUri: code.redirectUri,
    redirectUriFitsDefault: false,
    verifierChallenge: CHALLENGE,
    keepUntil: now + KEEP_CONSUMED_CODE_MS,
    ...extra,
  };
}

/**
 * The one-step exchanges of the token endpoint (`exchangeCode`, `exchangeRefreshToken`): the checks
 * made inside the atomic step, the refusal named and nothing written, the record the exchange
 * stores, and one winner among concurrent callers. Run through the engine's own operations, or,
 * for a store without them, through Gatehouse's two-call fallback over its other methods.
 */
export function exchangeCases({ api, storage, concurrency }: CaseContext): void {
  const { describe, it, expect } = api;

  describe('code exchange (exchangeCode)', () => {
    it('redeems a matching code and stores the refresh token it derives from the code', async () => {
      const { grants } = await storage();
      const now = baseTime();
      const code = await codeRecord(now, {
        scope: 'openid offline_access read',
        audience: ['https://api.example/a'],
        nonce: 'n-0S6_WzA2Mj',
        sessionId: freshId('sid'),
        acr: 'urn:example:loa:2',
        amr: ['pwd', 'otp'],
        authTime: now - 5000,
        ext: { ...EXT, dpopJkt: JKT },
      });
      await grants.saveCode(code);
      const tokenHash = await freshHash();
      const result = await exchangeCodeIn(
        grants,
        code.codeHash,
        matching(code, now + 1, { dpopJkt: JKT, refreshToken: { tokenHash, expiresAt: now + 3_600_000 } }),
        now + 1,
      );
      const consumed = { ...code, consumedAt: now + 1, expiresAt: now + 1 + KEEP_CONSUMED_CODE_MS };
      expect(result).toEqual({ status: 'redeemed', code: consumed, refreshTokenStored: true });
      expect(await grants.findCode(code.codeHash, now + 2)).toEqual(consumed);
      // The code's grant, user and authentication; not its nonce; its ext without the code's binding.
      const expected: RefreshTokenRecord = {
        tokenHash,
        grantId: code.grantId,
        clientId: code.clientId,
        subject: { kind: 'user', userId: code.userId },
        scope: code.scope,
        audience: code.audience,
        authTime: code.authTime,
        sessionId: code.sessionId,
        acr: code.acr,
        amr: code.amr,
        grantedAt: now + 1,
        issuedAt: now + 1,
        expiresAt: now + 3_600_000,
        ext: EXT,
      };
      expect(await grants.findRefreshToken(tokenHash, now + 2)).toEqual(expected);
    });

    it('binds the refresh token to the key it is given, keeping the rest of the code’s ext', async () => {
      const { grants } = await storage();
      const now = baseTime();
      const code = await codeRecord(now, { scope: 'read', ext: EXT });
      await grants.saveCode(code);
      const tokenHash = await freshHash();
      const refreshToken = { tokenHash, expiresAt: now + 3_600_000, dpopJkt: JKT };
      expect(
        (await exchangeCodeIn(grants, code.codeHash, matching(code, now, { refreshToken }), now)).status,
      ).toBe('redeemed');
      expect((await grants.findRefreshToken(tokenHash, now))?.ext).toEqual({ ...EXT, dpopJkt: JKT });

      const bare = await codeRecord(now, { scope: 'read' });
      await grants.saveCode(bare);
      const bound = { ...refreshToken, tokenHash: await freshHash() };
      await exchangeCodeIn(grants, bare.codeHash, matching(bare, now, { refreshToken: bound }), now);
      expect((await grants.findRefreshToken(bound.tokenHash, now))?.ext).toEqual({ dpopJkt: JKT });
      const unbound = await codeRecord(now, { scope: 'read' });
      await grants.saveCode(unbound);
      const plain = { tokenHash: await freshHash(), expiresAt: now + 3_600_000 };
      await exchangeCodeIn(grants, unbound.codeHash, matching(unbound, now, { refreshToken: plain }), now);
      expect((await grants.findRefreshToken(plain.tokenHash, now))?.ext).toBe(undefined);
    });

    it('stores no refresh token for an OpenID Connect code without offline_access', async () => {
      const { grants } = await storage();
      const now = baseTime();
      const code = await codeRecord(now, { scope: 'openid read' });
      await grants.saveCode(code);
      const refreshToken = { tokenHash: await freshHash(), expiresAt: now + 3_600_000 };
      const result = await exchangeCodeIn(grants, code.codeHash, matching(code, now, { refreshToken }), now);
      expect(result.status === 'redeemed' && result.refreshTokenStored).toBe(false);
      expect(await grants.findRefreshToken(refreshToken.tokenHash, now)).toBeNull();
      const withoutOne = await codeRecord(now, { scope: 'read' });
      await grants.saveCode(withoutOne);
      const none = await exchangeCodeIn(grants, withoutOne.codeHash, matching(withoutOne, now), now);
      expect(none.status === 'redeemed' && none.refreshTokenStored).toBe(false);
    });

    it('refuses a failed check by name, writes nothing, and leaves the code redeemable', async () => {
      const { grants } = await storage();
      const now = baseTime();
      const refusals: [Partial<AuthorizationCodeRecord>, Partial<CodeExchange>, string][] = [
        [{}, { clientId: 'client-b' }, 'client'],
        [{}, { redirectUri: 'https://app.example/other' }, 'redirect_uri'],
        [{}, { redirectUri: undefined, redirectUriFitsDefault: true }, 'redirect_uri'],
        [{ redirectUri: '' }, { redirectUri: undefined, redirectUriFitsDefault: false }, 'redirect_uri'],
        [{}, { verifierChallenge: undefined }, 'code_verifier_missing'],
        [{}, { verifierChallenge: CHALLENGE.replace('E', 'F') }, 'code_verifier_mismatch'],
        [{ codeChallenge: undefined }, {}, 'code_verifier_unexpected'],
        [{ ext: { dpopJkt: JKT } }, {}, 'dpop_key'],
        [{ ext: { dpopJkt: JKT } }, { dpopJkt: OTHER_JKT }, 'dpop_key'],
      ];
      for (const [fields, exchange, reason] of refusals) {
        const code = await codeRecord(now, { scope: 'read', ...fields });
        if ('codeChallenge' in fields) delete (code as { codeChallenge?: string }).codeChallenge;
        await grants.saveCode(code);
        const refreshToken = { tokenHash: await freshHash(), expiresAt: now + 3_600_000 };
        const attempt = { ...matching(code, now, { refreshToken }), ...exchange };
        expect({ reason, result: await exchangeCodeIn(grants, code.codeHash, attempt, now) }).toEqual({
          reason,
          result: { status: 'refused', reason },
        });
        expect(await grants.findRefreshToken(refreshToken.tokenHash, now)).toBeNull();
        expect(await grants.findCode(code.codeHash, now)).toEqual(code);
        const repaired = matching(code, now, {
          redirectUriFitsDefault: true,
          ...(code.codeChallenge === undefined ? { verifierChallenge: undefined } : {}),
          ...(fields.ext ? { dpopJkt: JKT } : {}),
        });
        expect((await exchangeCodeIn(grants, code.codeHash, repaired, now)).status).toBe('redeemed');
      }
      const fits = await codeRecord(now, { redirectUri: '' });
      await grants.saveCode(fits);
      expect(
        (
          await exchangeCodeIn(
            grants,
            fits.codeHash,
            matching(fits, now, { redirectUri: 'https://app.example/only', redirectUriFitsDefault: true }),
            now,
          )
        ).status,
      ).toBe('redeemed');
    });

    it('reports a replay only to a caller that passes the checks', async () => {
      const { grants } = await storage();
      const now = baseTime();
      const code = await codeRecord(now);
      await grants.saveCode(code);
      expect((await exchangeCodeIn(grants, code.codeHash, matching(code, now), now)).status).toBe('redeemed');
      const consumed = { ...code, consumedAt: now, expiresAt: now + KEEP_CONSUMED_CODE_MS };
      const late = { tokenHash: await freshHash(), expiresAt: now + 3_600_000 };
      expect(
        await exchangeCodeIn(grants, code.codeHash, matching(code, now + 1, { refreshToken: late }), now + 1),
      ).toEqual({ status: 'replayed', code: consumed });
      expect(await grants.findRefreshToken(late.tokenHash, now + 1)).toBeNull();
      expect(
        await exchangeCodeIn(
          grants,
          code.codeHash,
          matching(code, now + 1, { verifierChallenge: undefined }),
          now + 1,
        ),
      ).toEqual({ status: 'refused', reason: 'code_verifier_missing' });
    });

    it('answers invalid for an unknown, expired or revoked code', async () => {
      const { grants } = await storage();
      const now = baseTime();
      const code = await codeRecord(now);
      await grants.saveCode(code);
      expect(await exchangeCodeIn(grants, await freshHash(), matching(code, now), now)).toEqual({
        status: 'invalid',
      });
      expect(
        await exchangeCodeIn(grants, code.codeHash, matching(code, code.expiresAt), code.expiresAt),
      ).toEqual({
        status: 'invalid',
      });
      await grants.revokeGrant(code.grantId, now + 3_600_000);
      expect(await exchangeCodeIn(grants, code.codeHash, matching(code, now), now)).toEqual({
        status: 'invalid',
      });
    });

    it(`${concurrency} parallel exchanges of one code: exactly one redeemed, the rest replayed`, async () => {
      const { grants } = await storage();
      const now = baseTime();
      const code = await codeRecord(now, { scope: 'read' });
      await grants.saveCode(code);
      const hashes = await Promise.all(Array.from({ length: concurrency }, () => freshHash()));
      const results = await Promise.all(
        hashes.map((tokenHash) =>
          exchangeCodeIn(
            grants,
            code.codeHash,
            matching(code, now, { refreshToken: { tokenHash, expiresAt: now + 3_600_000 } }),
            now,
          ),
        ),
      );
      expect(results.filter((result) => result.status === 'redeemed').length).toBe(1);
      expect(results.filter((result) => result.status === 'replayed').length).toBe(concurrency - 1);
      const stored = await Promise.all(hashes.map((hash) => grants.findRefreshToken(hash, now)));
      expect(stored.filter((record) => record !== null).length).toBe(1);
      expect(stored[results.findIndex((result) => result.status === 'redeemed')]?.grantId).toBe(code.grantId);
    });
  });

  describe('refresh token exchange (exchangeRefreshToken)', () => {
    it('rotates a matching token and stores its successor with everything of the grant', async () => {
      const { grants } = await storage();
      const now = baseTime();
      const token = await refreshRecord(now, {
        audience: ['https://api.example/a'],
        authTime: now - 5000,
        grantedAt: now - 4000,
        sessionId: freshId('sid'),
        acr: 'urn:example:loa:2',
        amr: ['pwd'],
        ext: EXT,
      });
      await grants.saveRefreshToken(token);
      const next = { tokenHash: await freshHash(), expiresAt: now + 7_200_000 };
      expect(
        await exchangeRefreshTokenIn(grants, token.tokenHash, { clientId: token.clientId, next }, now + 10),
      ).toEqual({ status: 'rotated', previous: token });
      expect(await grants.findRefreshToken(token.tokenHash, now + 11)).toEqual({
        ...token,
        rotatedAt: now + 10,
      });
      expect(await grants.findRefreshToken(next.tokenHash, now + 11)).toEqual({
        ...token,
        tokenHash: next.tokenHash,
        issuedAt: now + 10,
        expiresAt: next.expiresAt,
      });
    });

    it('binds the successor to the key it is given; a bound token keeps its binding', async () => {
      const { grants } = await storage();
      const now = baseTime();
      const token = await refreshRecord(now, { ext: EXT });
      await grants.saveRefreshToken(token);
      const next = { tokenHash: await freshHash(), expiresAt: now + 7_200_000, dpopJkt: JKT };
      const exchange = { clientId: token.clientId, dpopJkt: JKT, next };
      expect((await exchangeRefreshTokenIn(grants, token.tokenHash, exchange, now + 1)).status).toBe(
        'rotated',
      );
      expect((await grants.findRefreshToken(next.tokenHash, now + 1))?.ext).toEqual({ ...EXT, dpopJkt: JKT });
      const after = { tokenHash: await freshHash(), expiresAt: now + 7_200_000 };
      expect(
        (
          await exchangeRefreshTokenIn(
            grants,
            next.tokenHash,
            { clientId: token.clientId, dpopJkt: JKT, next: after },
            now + 2,
          )
        ).status,
      ).toBe('rotated');
      expect((await grants.findRefreshToken(after.tokenHash, now + 2))?.ext).toEqual({
        ...EXT,
        dpopJkt: JKT,
      });
    });

    it('refuses another client or another key by name, writes nothing, and reports reuse only after the checks', async () => {
      const { grants } = await storage();
      const now = baseTime();
      const token = await refreshRecord(now, { ext: { dpopJkt: JKT } });
      await grants.saveRefreshToken(token);
      const next = { tokenHash: await freshHash(), expiresAt: now + 7_200_000 };
      for (const [exchange, reason] of [
        [{ clientId: 'client-b', dpopJkt: JKT, next }, 'client'],
        [{ clientId: token.clientId, next }, 'dpop_key'],
        [{ clientId: token.clientId, dpopJkt: OTHER_JKT, next }, 'dpop_key'],
      ] as const) {
        expect(await exchangeRefreshTokenIn(grants, token.tokenHash, exchange, now + 1)).toEqual({
          status: 'refused',
          reason,
        });
      }
      expect(await grants.findRefreshToken(next.tokenHash, now + 1)).toBeNull();
      expect(await grants.findRefreshToken(token.tokenHash, now + 1)).toEqual(token);
      const good = { clientId: token.clientId, dpopJkt: JKT, next };
      expect((await exchangeRefreshTokenIn(grants, token.tokenHash, good, now + 2)).status).toBe('rotated');
      const late = { ...good, next: { tokenHash: await freshHash(), expiresAt: now + 7_200_000 } };
      expect(await exchangeRefreshTokenIn(grants, token.tokenHash, late, now + 3)).toEqual({
        status: 'reused',
        previous: { ...token, rotatedAt: now + 2 },
      });
      expect(await grants.findRefreshToken(late.next.tokenHash, now + 3)).toBeNull();
      expect(
        await exchangeRefreshTokenIn(grants, token.tokenHash, { ...late, dpopJkt: undefined }, now + 3),
      ).toEqual({ status: 'refused', reason: 'dpop_key' });
    });

    it('answers invalid for an unknown, expired or revoked token', async () => {
      const { grants } = await storage();
      const now = baseTime();
      const token = await refreshRecord(now);
      await grants.saveRefreshToken(token);
      const exchange = {
        clientId: token.clientId,
        next: { tokenHash: await freshHash(), expiresAt: now + 7_200_000 },
      };
      expect(await exchangeRefreshTokenIn(grants, await freshHash(), exchange, now)).toEqual({
        status: 'invalid',
      });
      expect(await exchangeRefreshTokenIn(grants, token.tokenHash, exchange, token.expiresAt)).toEqual({
        status: 'invalid',
      });
      await grants.revokeGrant(token.grantId, now + 3_600_000);
      expect(await exchangeRefreshTokenIn(grants, token.tokenHash, exchange, now)).toEqual({
        status: 'invalid',
      });
      expect(await grants.findRefreshToken(exchange.next.tokenHash, now)).toBeNull();
    });

    it(`${concurrency} parallel exchanges of one refresh token: exactly one rotated, the rest reused`, async () => {
      const { grants } = await storage();
      const now = baseTime();
      const token = await refreshRecord(now);
      await grants.saveRefreshToken(token);
      const hashes = await Promise.all(Array.from({ length: concurrency }, () => freshHash()));
      const results = await Promise.all(
        hashes.map((tokenHash) =>
          exchangeRefreshTokenIn(
            grants,
            token.tokenHash,
            { clientId: token.clientId, next: { tokenHash, expiresAt: now + 7_200_000 } },
            now + 1,
          ),
        ),
      );
      expect(results.filter((result) => result.status === 'rotated').length).toBe(1);
      expect(results.filter((result) => result.status === 'reused').length).toBe(concurrency - 1);
      const stored = await Promise.all(hashes.map((hash) => grants.findRefreshToken(hash, now + 1)));
      expect(stored.filter((record) => record !== null).length).toBe(1);
    });
  });
}
