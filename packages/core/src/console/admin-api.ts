import type { InstanceAnswer } from '../feature.js';
import { toResponse } from '../http/reply.js';

/*
 * The admin API (`{base}/admin/v1/`, admin-contract) as the console calls it: through the
 * instance's own handler, in process, with the signed-in user's access token, so every call
 * passes the same checks as a remote one (scope, issuer and audience, the host's
 * `admin.authorize` hook) and every action is audited as that user's.
 */

/** An answer of the admin API: its status, and its JSON body (`{}` when it has none). */
export interface AdminAnswer<T = Record<string, unknown>> {
  readonly status: number;
  readonly body: T;
}

/** A key, as `listKeys` describes it. */
export interface AdminKey {
  readonly kid: string;
  readonly alg?: string;
  readonly state: string;
  readonly since?: number | string;
  readonly until?: number | string | null;
  readonly publishedAt?: number | string | null;
  /** `stored` (`keyRotation`) or `option` (the `keys` option: changed by configuration only). */
  readonly source?: string;
}

/** What `listKeys`, `rotateKeys` and `revokeKey` answer. */
export interface AdminKeys {
  readonly keys?: readonly AdminKey[];
  readonly signing?: { readonly kid?: string; readonly why?: string };
  /** The signing key of every algorithm the instance signs with, and why. */
  readonly signingKeys?: readonly { readonly kid?: string; readonly alg?: string; readonly why?: string }[];
  readonly cost?: string;
}

/** What `health` answers. */
export interface AdminHealth {
  readonly status?: string;
  readonly engine?: { readonly reachable?: boolean; readonly latencyMs?: number };
  readonly revocations?: { readonly lagMs?: number | null };
  readonly keys?: { readonly signing?: string };
}

/** What `metrics` answers. */
export interface AdminMetrics {
  readonly since?: number | string;
  readonly until?: number | string;
  readonly bucketSeconds?: number;
  readonly series?: {
    readonly tokensIssued?: Readonly<Record<string, readonly number[]>>;
    readonly refusals?: Readonly<Record<string, readonly number[]>>;
  };
}

/** A client, as `listClients` describes it. */
export interface AdminClient {
  readonly clientId: string;
  readonly name?: string;
  readonly selfRegistered?: boolean;
  readonly origin?: string;
  readonly grantTypes?: readonly string[];
  readonly createdAt?: number | string;
}

/** A user, as `findUsers` describes it. */
export interface AdminUser {
  readonly id: string;
  readonly username?: string;
  readonly name?: string;
}

/** A session, as `listUserSessions` describes it. */
export interface AdminSession {
  readonly id: string;
  readonly createdAt?: number | string;
  readonly lastSeenAt?: number | string;
  readonly expiresAt?: number | string;
  readonly clients?: readonly string[];
}

/** A grant, as `listUserGrants` describes it. */
export interface AdminGrant {
  readonly id: string;
  readonly clientId: string;
  readonly scope?: string | readonly string[];
  readonly createdAt?: number | string;
  readonly lastUsedAt?: number | string;
  readonly expiresAt?: number | string;
}

/** An audit record, as `readAudit` answers it. */
export interface AdminAuditRecord {
  readonly time?: string | number;
  readonly type?: string;
  readonly outcome?: string;
  readonly reason?: string;
  readonly clientId?: string;
  readonly subject?: string;
  readonly actor?: { readonly clientId?: string; readonly subject?: string };
  readonly details?: Readonly<Record<string, unknown>>;
}

/** The admin API of one instance, called with one access token. */
export class AdminApi {
  readonly #base: string;
  readonly #answer: InstanceAnswer;
  readonly #token: string;

  constructor(issuer: string, answer: InstanceAnswer, token: string) {
    this.#base = `${issuer}/admin/v1`;
    this.#answer = answer;
    this.#token = token;
  }

  /** One call; `path` below `/admin/v1` (already encoded), `body` sent as JSON. */
  async call<T = Record<string, unknown>>(
    method: 'GET' | 'POST' | 'DELETE',
    path: string,
    body?: unknown,
  ): Promise<AdminAnswer<T>> {
    const headers = new Headers({ Authorization: `Bearer ${this.#token}`, Accept: 'application/json' });
    if (body !== undefined) headers.set('Content-Type', 'application/json');
    const response = toResponse(
      await this.#answer(
        new Request(this.#base + path, {
          method,
          headers,
          ...(body === undefined ? {} : { body: JSON.stringify(body) }),
        }),
      ),
    );
    const text = await response.text();
    let parsed: unknown = {};
    try {
      parsed = text === '' ? {} : JSON.parse(text);
    } catch {
      parsed = {};
    }
    return { status: response.status, body: (parsed ?? {}) as T };
  }
}

/** A path segment, percent-encoded. */
export function segment(value: string): string {
  return encodeURIComponent(value);
}
