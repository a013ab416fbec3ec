/*
 * The shape of RFC 9396 authorization details as tokens carry them: in the `authorization_details`
 * claim of a JWT access token (§9.1), in an introspection answer (§9.2), and on the caller of a
 * protected operation. What a request may ask for, and how the types are checked, is the
 * authorization details feature's (`oauth2/authorization-details/`); this is only the carried shape.
 */

/**
 * One authorization detail (RFC 9396 §2): an object with a `type` and the members that type
 * defines. The common members of §2.2 are typed; a type's own members are `unknown` until the
 * type's validator (the host's) has checked them.
 */
export interface AuthorizationDetail {
  /** The type (§2): what the other members mean. One of `authorization_details_types_supported`. */
  readonly type: string;
  /** Where the access applies (§2.2 `locations`): URIs of resource servers. */
  readonly locations?: readonly string[];
  /** Kinds of action on the resource (§2.2 `actions`), e.g. `read`, `write`. */
  readonly actions?: readonly string[];
  /** Kinds of data asked for (§2.2 `datatypes`), e.g. `contacts`, `photos`. */
  readonly datatypes?: readonly string[];
  /** A specific resource (§2.2 `identifier`) available at the API. */
  readonly identifier?: string;
  /** Types or levels of privilege (§2.2 `privileges`), e.g. `admin`. */
  readonly privileges?: readonly string[];
  /** The members of the type itself. */
  readonly [member: string]: unknown;
}

/** The common members of RFC 9396 §2.2 that are arrays of strings. */
export const STRING_ARRAY_MEMBERS = ['locations', 'actions', 'datatypes', 'privileges'] as const;

/**
 * Whether `value` is one authorization detail as §2 and §2.2 shape it: an object with a non-empty
 * string `type`, its common members (when present) of their types. Says nothing of the type's
 * own members (the type's validator does).
 */
export function isAuthorizationDetail(value: unknown): value is AuthorizationDetail {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
  const detail = value as Record<string, unknown>;
  if (typeof detail.type !== 'string' || detail.type.length === 0) return false;
  for (const member of STRING_ARRAY_MEMBERS) {
    const given = detail[member];
    if (given !== undefined && !(Array.isArray(given) && given.every((item) => typeof item === 'string')))
      return false;
  }
  return detail.identifier === undefined || typeof detail.identifier === 'string';
}

/**
 * The `authorization_details` of a token's claims or of an introspection answer: `undefined` when
 * absent, `null` when present but not an array of details (such a token is not one of ours, or
 * the answer is broken: refused), else the details, frozen.
 */
export function authorizationDetailsClaim(value: unknown): readonly AuthorizationDetail[] | undefined | null {
  if (value === undefined) return undefined;
  if (!Array.isArray(value) || !value.every(isAuthorizationDetail)) return null;
  return Object.freeze(value as AuthorizationDetail[]);
}
