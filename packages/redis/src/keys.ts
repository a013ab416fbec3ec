/**
 * Key layout. Everything the grant store touches in one script (a code, its grant's revocation
 * marker, the refresh token it issues) shares the hash tag `{prefix}`, so that multi-key scripts run
 * on Redis Cluster (all of them hash to one slot). Sessions, consents and rate-limit windows are
 * single-key and carry no tag, so they spread over the cluster.
 */
export interface KeyLayout {
  code(codeHash: string): string;
  refreshToken(tokenHash: string): string;
  revokedGrant(grantId: string): string;
  revokedToken(jti: string): string;
  session(idHash: string): string;
  consent(userId: string, clientId: string): string;
  rateLimit(key: string): string;
}

/** The keys of one instance, below `prefix`. */
export function keyLayout(prefix: string): KeyLayout {
  if (prefix === '' || /[{}\s]/.test(prefix)) {
    throw new TypeError('redisStorage: `prefix` must be non-empty, without braces or whitespace.');
  }
  const tagged = `{${prefix}}`;
  return {
    code: (codeHash) => `${tagged}:code:${codeHash}`,
    refreshToken: (tokenHash) => `${tagged}:rt:${tokenHash}`,
    revokedGrant: (grantId) => `${tagged}:revoked-grant:${grantId}`,
    revokedToken: (jti) => `${tagged}:revoked-jti:${jti}`,
    session: (idHash) => `${prefix}:session:${idHash}`,
    // The user id's length keeps ("a:b", "c") and ("a", "b:c") apart.
    consent: (userId, clientId) => `${prefix}:consent:${userId.length}:${userId}:${clientId}`,
    rateLimit: (key) => `${prefix}:rate:${key}`,
  };
}

/**
 * An instant (now, consumedAt, lastSeenAt…) as whole milliseconds, rounded down. Scripts compare
 * and store integers; expiries round up ({@link expireAt}), so rounding never extends a record's
 * life by more than 1 ms.
 */
export function instant(epochMs: number): number {
  return Math.floor(epochMs);
}

/**
 * An expiry as whole milliseconds, rounded up. Redis rejects `PXAT 0`; an expiry at or before 1 ms
 * still means "already gone".
 */
export function expireAt(epochMs: number): string {
  return String(Math.max(1, Math.ceil(epochMs)));
}
