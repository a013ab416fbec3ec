import {
  boundJkt,
  codeRefusal,
  offlineAccessGranted,
  refreshTokenFromCode,
  refreshTokenRefusal,
  rotatedRefreshToken,
} from '../grant-exchange.js';
import { markTrusted } from '../guard.js';
import type {
  ExchangeCodeResult,
  ExchangeRefreshTokenResult,
  GrantStore,
  RedeemCodeResult,
  RefreshTokenRecord,
  RevocationEvent,
  RevocationListener,
  RotateRefreshTokenResult,
} from '../types.js';
import type { Clearable } from './clearable.js';
import { Interner, StoredCode, StoredToken, storedToken, type Token } from './compact-records.js';
import { ExpiringMap, ExpiringStore } from './expiring-map.js';

const INVALID = { status: 'invalid' } as const;

interface Revocation {
  readonly expiresAt: number;
}

/** A user's mark: everything issued to them at or before `at` is revoked. */
interface SubjectRevocation extends Revocation {
  readonly at: number;
}

/**
 * In-memory {@link GrantStore}: the embedded default, for one process. JavaScript runs each
 * synchronous block to completion, so the check-and-set of `redeemCode`, `rotateRefreshToken` and the
 * exchanges (no `await` between check and write) is atomic.
 */
export function memoryGrantStore(): GrantStore & Clearable {
  // Codes and refresh tokens in compact form (compact-records.ts), rebuilt as records when read.
  const interner = new Interner();
  const codes = new ExpiringStore<StoredCode>();
  const refreshTokens = new ExpiringStore<Token>();
  const revokedGrants = new ExpiringMap<Revocation>();
  const revokedTokens = new ExpiringMap<Revocation>();
  const revokedSubjects = new ExpiringMap<SubjectRevocation>();

  // Pushed revocations (watchRevocations): in one process the "channel" is a function call.
  const listeners = new Set<RevocationListener>();
  const publish = (event: RevocationEvent) => {
    for (const listener of listeners) listener.revoked(event);
  };

  const grantRevoked = (grantId: string, now: number) => revokedGrants.get(grantId, now) !== undefined;
  /** Whether something issued to `userId` at `issuedAt` falls under the user's mark. */
  const subjectRevoked = (userId: string, issuedAt: number, now: number) => {
    const mark = revokedSubjects.get(userId, now);
    return mark !== undefined && issuedAt <= mark.at;
  };
  const codeRevoked = (code: StoredCode, now: number) =>
    grantRevoked(code.grantId, now) || subjectRevoked(code.userId, code.authTime, now);
  const refreshRevoked = ({ grant, issuedAt }: Token, now: number) =>
    grantRevoked(grant.grantId, now) ||
    (grant.subject.kind === 'user' && subjectRevoked(grant.subject.userId, issuedAt, now));
  /** The live code of `codeHash` (unexpired, not revoked), consumed or not. */
  const liveCode = (codeHash: string, now: number) => {
    const code = codes.get(codeHash, now);
    return code && !codeRevoked(code, now) ? code : undefined;
  };
  /** The live refresh token of `tokenHash` (unexpired, not revoked), rotated or not. */
  const liveToken = (tokenHash: string, now: number) => {
    const token = refreshTokens.get(tokenHash, now);
    return token && !refreshRevoked(token, now) ? token : undefined;
  };

  /** Marks a live code consumed, keeping it until `keepUntil` (see redeemCode), and stores `refreshToken`. */
  const consume = (
    code: StoredCode,
    refreshToken: RefreshTokenRecord | null,
    now: number,
    keepUntil: number,
  ) => {
    // Kept past the code's own expiry so that a late replay still revokes the grant (RFC 6749 §4.1.2).
    const consumed = code.consumed(now, keepUntil);
    codes.put(consumed, now);
    if (refreshToken) refreshTokens.put(storedToken(refreshToken, interner), now);
    return consumed.record();
  };
  /** Marks a live token rotated (kept until it expires, for reuse detection) and stores `next`. */
  const rotate = (previous: Token, next: Token, now: number) => {
    refreshTokens.put(previous.rotated(now), now);
    refreshTokens.put(next, now);
  };

  return markTrusted({
    clear() {
      codes.clear();
      refreshTokens.clear();
      revokedGrants.clear();
      revokedTokens.clear();
      revokedSubjects.clear();
      interner.clear();
    },
    async saveCode(record) {
      codes.put(StoredCode.of(record, interner), record.authTime);
    },
    async findCode(codeHash, now) {
      return liveCode(codeHash, now)?.record() ?? null;
    },
    async redeemCode(codeHash, refreshToken, now, keepUntil): Promise<RedeemCodeResult> {
      const code = liveCode(codeHash, now);
      if (!code) return INVALID;
      if (code.consumedAt !== undefined) return { status: 'replayed', code: code.record() };
      return { status: 'redeemed', code: consume(code, refreshToken, now, keepUntil) };
    },
    // The exchanges run their checks and their write in one synchronous block: atomic, like the rest.
    async exchangeCode(codeHash, exchange, now): Promise<ExchangeCodeResult> {
      const code = liveCode(codeHash, now);
      if (!code) return INVALID;
      const reason = codeRefusal(code, exchange);
      if (reason !== undefined) return { status: 'refused', reason };
      const record = code.record();
      if (code.consumedAt !== undefined) return { status: 'replayed', code: record };
      const refreshToken =
        exchange.refreshToken !== undefined && offlineAccessGranted(code.scope)
          ? refreshTokenFromCode(record, exchange.refreshToken, now)
          : null;
      const consumed = consume(code, refreshToken, now, exchange.keepUntil);
      return { status: 'redeemed', code: consumed, refreshTokenStored: refreshToken !== null };
    },
    async saveRefreshToken(record) {
      refreshTokens.put(storedToken(record, interner), record.issuedAt);
    },
    async findRefreshToken(tokenHash, now) {
      return liveToken(tokenHash, now)?.record() ?? null;
    },
    async rotateRefreshToken(tokenHash, next, now): Promise<RotateRefreshTokenResult> {
      const token = liveToken(tokenHash, now);
      if (!token) return INVALID;
      const previous = token.record();
      if (token.rotatedAt !== undefined) return { status: 'reused', previous };
      rotate(token, storedToken(next, interner, token.grant), now);
      return { status: 'rotated', previous };
    },
    async exchangeRefreshToken(tokenHash, exchange, now): Promise<ExchangeRefreshTokenResult> {
      const token = liveToken(tokenHash, now);
      if (!token) return INVALID;
      const reason = refreshTokenRefusal(token.grant, exchange);
      if (reason !== undefined) return { status: 'refused', reason };
      const previous = token.record();
      if (token.rotatedAt !== undefined) return { status: 'reused', previous };
      const { next } = exchange;
      // The successor shares its grant's members, unless it is bound to a key anew.
      const successor =
        next.dpopJkt === undefined || next.dpopJkt === boundJkt(token.grant.ext)
          ? new StoredToken(next.tokenHash, token.grant, now, next.expiresAt)
          : storedToken(rotatedRefreshToken(previous, next, now), interner);
      rotate(token, successor, now);
      return { status: 'rotated', previous };
    },
    async revokeGrant(grantId, expiresAt) {
      const existing = revokedGrants.get(grantId, 0);
      const until = Math.max(expiresAt, existing?.expiresAt ?? 0);
      revokedGrants.set(grantId, { expiresAt: until }, 0);
      publish({ kind: 'grant', id: grantId, expiresAt: until });
    },
    async revokeAccessToken(jti, expiresAt) {
      const until = Math.max(expiresAt, revokedTokens.get(jti, 0)?.expiresAt ?? 0);
      revokedTokens.set(jti, { expiresAt: until }, 0);
      publish({ kind: 'token', id: jti, expiresAt: until });
    },
    async revokeSubject(userId, at, expiresAt) {
      const existing = revokedSubjects.get(userId, 0);
      const mark = {
        at: Math.max(at, existing?.at ?? at),
        expiresAt: Math.max(expiresAt, existing?.expiresAt ?? 0),
      };
      revokedSubjects.set(userId, mark, 0);
      publish({ kind: 'subject', id: userId, ...mark });
    },
    // Answered synchronously (see the interface): the bearer check of a known token then waits for nothing.
    isRevoked(jti, grantId, now, userId, issuedAt) {
      return (
        revokedTokens.get(jti, now) !== undefined ||
        (grantId !== undefined && grantRevoked(grantId, now)) ||
        (userId !== undefined && issuedAt !== undefined && subjectRevoked(userId, issuedAt, now))
      );
    },
    subjectRevokedAt(userId, now) {
      return revokedSubjects.get(userId, now)?.at ?? null;
    },
    // A scan of every refresh token: the memory engine serves one process's grants, and the host
    // asks this for an account page, never on a request path.
    async listUserRefreshTokens(userId, now) {
      const live: RefreshTokenRecord[] = [];
      for (const token of refreshTokens.values()) {
        const { subject } = token.grant;
        if (subject.kind !== 'user' || subject.userId !== userId) continue;
        if (token.expiresAt <= now || token.rotatedAt !== undefined || refreshRevoked(token, now)) continue;
        live.push(token.record());
      }
      return live;
    },
    watchRevocations(listener) {
      listeners.add(listener);
      queueMicrotask(() => listeners.has(listener) && listener.connected());
      return {
        async probe(probeId) {
          queueMicrotask(() => {
            for (const each of listeners) each.echoed(probeId);
          });
        },
        async snapshot(now) {
          const events: RevocationEvent[] = [];
          for (const [id, { expiresAt }] of revokedGrants.entries())
            if (expiresAt > now) events.push({ kind: 'grant', id, expiresAt });
          for (const [id, { expiresAt }] of revokedTokens.entries())
            if (expiresAt > now) events.push({ kind: 'token', id, expiresAt });
          for (const [id, { at, expiresAt }] of revokedSubjects.entries())
            if (expiresAt > now) events.push({ kind: 'subject', id, at, expiresAt });
          return events;
        },
        unsubscribe() {
          listeners.delete(listener);
        },
      };
    },
  });
}
