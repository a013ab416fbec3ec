import type { Writable } from '../../writable.js';
import { clientSubject, userSubject } from '../subject.js';
import type { AuthorizationCodeRecord, RecordExtensions, RefreshTokenRecord, Subject } from '../types.js';

/**
 * How the memory engine keeps codes and refresh tokens: compact objects of one shape each (every
 * member present, `undefined` when absent), the members a grant's refresh tokens share in one
 * object that every rotation of the grant points to, and the strings and subjects many records
 * repeat (client ids, scopes, redirect URIs, user ids, `amr` and audience lists) kept once by an
 * {@link Interner}. A record is rebuilt as the contract's plain object when it is read. A refresh
 * token of a browser sign-in went from about 550 to about 360 bytes of heap (bench/memory.mjs).
 */

/**
 * `value`, made one flat piece of memory. V8 keeps a string built by concatenation as a tree of its
 * pieces until something reads its characters, which flattens it in place: a `crypto.randomUUID()`
 * is 14 pieces, about 450 bytes where the flat string takes 64. Records keep ids for a long time,
 * so the engine reads one character of each string it keeps (a no-op for a flat one).
 */
export function flat<T extends string | undefined>(value: T): T {
  if (value !== undefined && value.length > 0) value.charCodeAt(0);
  return value;
}

/**
 * Entries an {@link Interner} keeps of a kind before it starts that kind afresh: a bound, not a
 * cache size to tune. Client ids, scopes, redirect URIs and `amr` lists are few; users are many, and
 * a user's grants share their subject only while the user is among the last {@link SUBJECTS}.
 */
const INTERNED = 4096;
const SUBJECTS = 65_536;

/**
 * Equal strings, lists and subjects handed out as one object, so that records repeating them hold a
 * reference (4 bytes) instead of a copy. Bounded: past {@link INTERNED} entries of a kind it
 * forgets that kind and starts again (records keep what they hold), so that a stream of distinct
 * values (user ids) costs the interner no more than the bound (about 5 MB for the subjects).
 */
export class Interner {
  #strings = new Map<string, string>();
  #users = new Map<string, Subject>();
  #clients = new Map<string, Subject>();
  #lists = new Map<string, readonly string[]>();

  string<T extends string | undefined>(value: T): T {
    if (value === undefined) return value;
    const known = this.#strings.get(value);
    if (known !== undefined) return known as T;
    if (this.#strings.size >= INTERNED) this.#strings = new Map();
    this.#strings.set(flat(value), value);
    return value;
  }

  subject(subject: Subject): Subject {
    // A record of another shape is kept as it is (the contract's two kinds are interned).
    if (subject?.kind !== 'user' && subject?.kind !== 'client') return subject;
    const [map, id] =
      subject.kind === 'user' ? [this.#users, subject.userId] : [this.#clients, subject.clientId];
    const known = map.get(id);
    if (known !== undefined) return known;
    const made = subject.kind === 'user' ? userSubject(flat(id)) : clientSubject(this.string(id));
    if (map.size >= SUBJECTS) {
      if (subject.kind === 'user') this.#users = new Map([[id, made]]);
      else this.#clients = new Map([[id, made]]);
    } else map.set(id, made);
    return made;
  }

  /** A list of strings (`amr`, an audience), frozen; other values are kept as they are. */
  list(list: readonly string[] | undefined): readonly string[] | undefined {
    if (list === undefined || !list.every((item) => typeof item === 'string' && !item.includes('\u0000')))
      return list;
    const key = list.join('\u0000') + (list.length === 0 ? '' : '\u0000');
    const known = this.#lists.get(key);
    if (known !== undefined && known.length === list.length) return known;
    if (this.#lists.size >= INTERNED) this.#lists = new Map();
    const made = Object.freeze(list.map((item) => this.string(item)));
    this.#lists.set(key, made);
    return made;
  }

  clear(): void {
    this.#strings = new Map();
    this.#users = new Map();
    this.#clients = new Map();
    this.#lists = new Map();
  }
}

/**
 * The members most grants and codes do not have (resources, `acr`, `amr`, extensions): one object
 * when any is set, so that a record without them pays one member for the four.
 */
export class RareMembers {
  constructor(
    readonly audience: readonly string[] | undefined,
    readonly acr: string | undefined,
    readonly amr: readonly string[] | undefined,
    readonly ext: RecordExtensions | undefined,
  ) {}

  /** The rare members of `record`, or `undefined` when it has none. */
  static of(
    record: Pick<RefreshTokenRecord, 'audience' | 'acr' | 'amr' | 'ext'>,
    interner: Interner,
  ): RareMembers | undefined {
    if (
      record.audience === undefined &&
      record.acr === undefined &&
      record.amr === undefined &&
      record.ext === undefined
    )
      return undefined;
    return new RareMembers(
      interner.list(record.audience),
      interner.string(record.acr),
      interner.list(record.amr),
      record.ext,
    );
  }

  /** Whether `record` has exactly these members (`rare` may be `undefined`: none). */
  static describe(
    rare: RareMembers | undefined,
    record: Pick<RefreshTokenRecord, 'audience' | 'acr' | 'amr' | 'ext'>,
  ): boolean {
    return (
      record.audience === rare?.audience &&
      record.acr === rare?.acr &&
      record.amr === rare?.amr &&
      record.ext === rare?.ext
    );
  }

  /** Writes the members that are set onto `record`. */
  addTo(record: Writable<Pick<RefreshTokenRecord, 'audience' | 'acr' | 'amr' | 'ext'>>): void {
    if (this.audience !== undefined) record.audience = this.audience;
    if (this.acr !== undefined) record.acr = this.acr;
    if (this.amr !== undefined) record.amr = this.amr;
    if (this.ext !== undefined) record.ext = this.ext;
  }
}

/**
 * A grant's first stored refresh token, which also holds what every token of the grant shares
 * through its rotations: its successors ({@link StoredToken}) point to it for those members. One
 * object for a grant's only token (the usual case), a small one more per rotation.
 */
export class TokenGrant {
  constructor(
    readonly key: string,
    readonly issuedAt: number,
    readonly expiresAt: number,
    readonly grantId: string,
    readonly clientId: string,
    readonly subject: Subject,
    readonly scope: string,
    readonly authTime: number | undefined,
    readonly sessionId: string | undefined,
    readonly grantedAt: number | undefined,
    readonly rare: RareMembers | undefined,
  ) {}

  static of(record: RefreshTokenRecord, interner: Interner): TokenGrant {
    return new TokenGrant(
      flat(record.tokenHash),
      record.issuedAt,
      record.expiresAt,
      flat(record.grantId),
      interner.string(record.clientId),
      interner.subject(record.subject),
      interner.string(record.scope),
      record.authTime,
      flat(record.sessionId),
      record.grantedAt,
      RareMembers.of(record, interner),
    );
  }

  /** As a stored token: the grant it belongs to is itself. */
  get grant(): TokenGrant {
    return this;
  }

  /** As a stored token: a grant's first token is stored rotated as a {@link StoredToken}. */
  get rotatedAt(): number | undefined {
    return undefined;
  }

  get ext(): RecordExtensions | undefined {
    return this.rare?.ext;
  }

  /** Whether `record` (a token of this grant) has exactly these shared members. */
  describes(record: RefreshTokenRecord): boolean {
    return (
      record.grantId === this.grantId &&
      record.clientId === this.clientId &&
      record.subject === this.subject &&
      record.scope === this.scope &&
      record.authTime === this.authTime &&
      record.sessionId === this.sessionId &&
      record.grantedAt === this.grantedAt &&
      RareMembers.describe(this.rare, record)
    );
  }

  rotated(at: number): Token {
    return new RotatedToken(this.key, this, this.issuedAt, this.expiresAt, at);
  }

  record(): RefreshTokenRecord {
    return tokenRecord(this);
  }
}

/** A grant's later refresh token (a rotation's successor): its own hash and times, the rest its grant's. */
export class StoredToken {
  constructor(
    readonly key: string,
    readonly grant: TokenGrant,
    readonly issuedAt: number,
    readonly expiresAt: number,
  ) {}

  get rotatedAt(): number | undefined {
    return undefined;
  }

  rotated(at: number): Token {
    return new RotatedToken(this.key, this.grant, this.issuedAt, this.expiresAt, at);
  }

  record(): RefreshTokenRecord {
    return tokenRecord(this);
  }
}

/** A rotated refresh token, kept until it expires so that presenting it again is recognised as reuse. */
export class RotatedToken {
  constructor(
    readonly key: string,
    readonly grant: TokenGrant,
    readonly issuedAt: number,
    readonly expiresAt: number,
    readonly rotatedAt: number,
  ) {}

  rotated(at: number): Token {
    return new RotatedToken(this.key, this.grant, this.issuedAt, this.expiresAt, at);
  }

  record(): RefreshTokenRecord {
    return tokenRecord(this);
  }
}

/** A stored refresh token, of any of its three forms. */
export type Token = TokenGrant | StoredToken | RotatedToken;

/**
 * Stores `record`: as a token of `sameGrant` when it has the same grant members (a rotation's
 * successor), else as a grant of its own.
 */
export function storedToken(record: RefreshTokenRecord, interner: Interner, sameGrant?: TokenGrant): Token {
  const grant = sameGrant?.describes(record) ? sameGrant : undefined;
  if (grant === undefined && record.rotatedAt === undefined) return TokenGrant.of(record, interner);
  const owner = grant ?? TokenGrant.of(record, interner);
  const key = flat(record.tokenHash);
  return record.rotatedAt === undefined
    ? new StoredToken(key, owner, record.issuedAt, record.expiresAt)
    : new RotatedToken(key, owner, record.issuedAt, record.expiresAt, record.rotatedAt);
}

/** The contract's record of a stored token, rebuilt. */
function tokenRecord(token: Token): RefreshTokenRecord {
  const g = token.grant;
  const record: Writable<RefreshTokenRecord> = {
    tokenHash: token.key,
    grantId: g.grantId,
    clientId: g.clientId,
    subject: g.subject,
    scope: g.scope,
    issuedAt: token.issuedAt,
    expiresAt: token.expiresAt,
  };
  if (g.authTime !== undefined) record.authTime = g.authTime;
  if (g.sessionId !== undefined) record.sessionId = g.sessionId;
  if (g.grantedAt !== undefined) record.grantedAt = g.grantedAt;
  g.rare?.addTo(record);
  if (token.rotatedAt !== undefined) record.rotatedAt = token.rotatedAt;
  return record;
}

/** A stored authorization code (unconsumed, or consumed and kept for replay detection), under its hash. */
export class StoredCode {
  constructor(
    readonly key: string,
    readonly clientId: string,
    readonly userId: string,
    readonly grantId: string,
    readonly redirectUri: string,
    readonly scope: string,
    readonly codeChallenge: string | undefined,
    readonly authTime: number,
    readonly expiresAt: number,
    readonly consumedAt: number | undefined,
    readonly nonce: string | undefined,
    readonly sessionId: string | undefined,
    readonly rare: RareMembers | undefined,
  ) {}

  static of(code: AuthorizationCodeRecord, interner: Interner): StoredCode {
    return new StoredCode(
      flat(code.codeHash),
      interner.string(code.clientId),
      interner.string(code.userId),
      flat(code.grantId),
      interner.string(code.redirectUri),
      interner.string(code.scope),
      flat(code.codeChallenge),
      code.authTime,
      code.expiresAt,
      code.consumedAt,
      flat(code.nonce),
      flat(code.sessionId),
      RareMembers.of(code, interner),
    );
  }

  get ext(): RecordExtensions | undefined {
    return this.rare?.ext;
  }

  consumed(at: number, keepUntil: number): StoredCode {
    return new StoredCode(
      this.key,
      this.clientId,
      this.userId,
      this.grantId,
      this.redirectUri,
      this.scope,
      this.codeChallenge,
      this.authTime,
      Math.max(this.expiresAt, keepUntil),
      at,
      this.nonce,
      this.sessionId,
      this.rare,
    );
  }

  /** The contract's record, rebuilt. */
  record(): AuthorizationCodeRecord {
    const code: Writable<AuthorizationCodeRecord> = {
      codeHash: this.key,
      clientId: this.clientId,
      userId: this.userId,
      grantId: this.grantId,
      redirectUri: this.redirectUri,
      scope: this.scope,
      authTime: this.authTime,
      expiresAt: this.expiresAt,
    };
    if (this.codeChallenge !== undefined) code.codeChallenge = this.codeChallenge;
    if (this.consumedAt !== undefined) code.consumedAt = this.consumedAt;
    if (this.nonce !== undefined) code.nonce = this.nonce;
    if (this.sessionId !== undefined) code.sessionId = this.sessionId;
    this.rare?.addTo(code);
    return code;
  }
}
