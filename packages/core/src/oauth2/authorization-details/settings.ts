import { ConfigurationError, oauthError, type ProtocolError } from '../../errors.js';
import { whole } from '../../option-values.js';
import type { AuthorizationDetailsOptions, AuthorizationDetailType } from '../../options.js';
import type { ClientRecord } from '../../storage/types.js';
import {
  type AuthorizationDetail,
  isAuthorizationDetail,
  STRING_ARRAY_MEMBERS,
} from '../../tokens/authorization-details.js';

/** A type name (RFC 9396 §2 leaves it open): printable ASCII without spaces, at most 256 characters. */
const TYPE_NAME = /^[\x21-\x7e]{1,256}$/;

/** The shown words of one detail (consent page, `interactions.details()`). */
export interface DescribedAuthorizationDetail {
  /** The detail's type. */
  readonly type: string;
  /** The detail itself, as granted. */
  readonly detail: AuthorizationDetail;
  /** What it allows, in words (the type's `describe`), in the page's language. */
  readonly description: string;
}

/**
 * Rich authorization requests (RFC 9396) as the instance runs them (`authorizationDetails`
 * options, validated): the one place that checks, shows and compares authorization details. Every
 * endpoint taking `authorization_details` (authorization, pushed authorization request, token; a
 * back-channel authentication endpoint) goes through it, so a type's rules hold everywhere.
 */
export interface AuthorizationDetailsService {
  /** `authorization_details_types_supported` (RFC 9396 §10): the types, in the order given. */
  readonly types: readonly string[];
  /** Most details in one request. */
  readonly maxDetails: number;
  /** Longest parameter, in bytes of UTF-8. */
  readonly maxBytes: number;
  /**
   * The `authorization_details` parameter (JSON text, RFC 9396 §2) of `client`, parsed and checked
   * ({@link validate}). Throws `invalid_authorization_details` (RFC 9396 §5).
   */
  parse(text: string, client: ClientRecord): readonly AuthorizationDetail[];
  /**
   * Checks details for `client`: a non-empty array of at most `maxDetails` objects, each with a
   * `type` the instance accepts and the client may use, its common members (§2.2) of their types,
   * accepted by its type's `validate`. Returns them (frozen); throws `invalid_authorization_details`.
   */
  validate(details: unknown, client: ClientRecord): readonly AuthorizationDetail[];
  /** Each detail in words, in `locale` (its type's `describe`). */
  describe(details: readonly AuthorizationDetail[], locale: string): readonly DescribedAuthorizationDetail[];
  /**
   * Whether every detail of `requested` is within one of `granted` (RFC 9396 §6.1: a token
   * request may narrow what was granted, never widen it).
   */
  covers(granted: readonly AuthorizationDetail[], requested: readonly AuthorizationDetail[]): boolean;
}

/** `invalid_authorization_details` (RFC 9396 §5), with what is wrong. */
export function invalidAuthorizationDetails(description: string): ProtocolError {
  return oauthError('invalid_authorization_details', description);
}

const encoder = new TextEncoder();

/**
 * Validates the `authorizationDetails` option into the instance's service; `undefined` when the
 * option is absent (the feature is off and `authorization_details` is ignored).
 */
export function authorizationDetailsSettings(
  options: AuthorizationDetailsOptions | undefined,
): AuthorizationDetailsService | undefined {
  if (options === undefined) return undefined;
  const fail = (option: string, message: string): never => {
    throw new ConfigurationError(`${option}: ${message}`, { code: 'ERR_CONFIG_INVALID_OPTION', option });
  };
  if (typeof options !== 'object' || options === null)
    fail('authorizationDetails', 'expected an object { types, maxDetails?, maxBytes? }.');
  const given = options.types;
  if (typeof given !== 'object' || given === null || Object.keys(given).length === 0)
    fail(
      'authorizationDetails.types',
      'expected an object naming at least one type: { [type]: { validate, describe } }.',
    );
  const types = new Map<string, AuthorizationDetailType>();
  for (const [name, type] of Object.entries(given)) {
    const option = `authorizationDetails.types.${name}`;
    if (!TYPE_NAME.test(name)) fail(option, 'a type name is 1 to 256 printable ASCII characters, no spaces.');
    if (typeof type !== 'object' || type === null) fail(option, 'expected { validate, describe, covers? }.');
    if (typeof type.validate !== 'function')
      fail(`${option}.validate`, 'expected a function (detail, { client }) => string | undefined.');
    if (typeof type.describe !== 'function')
      fail(`${option}.describe`, 'expected a function (detail, locale) => string.');
    if (type.covers !== undefined && typeof type.covers !== 'function')
      fail(`${option}.covers`, 'expected a function (granted, requested) => boolean.');
    types.set(name, type);
  }
  const maxDetails = whole('authorizationDetails.maxDetails', options.maxDetails, 10, 1, 100);
  const maxBytes = whole('authorizationDetails.maxBytes', options.maxBytes, 2048, 64, 4096);

  const validate = (details: unknown, client: ClientRecord): readonly AuthorizationDetail[] => {
    if (!Array.isArray(details) || details.length === 0)
      throw invalidAuthorizationDetails(
        'The authorization_details must be a non-empty JSON array (RFC 9396 section 2).',
      );
    if (details.length > maxDetails)
      throw invalidAuthorizationDetails(
        `At most ${maxDetails} authorization details may be asked for at once.`,
      );
    if (encoder.encode(JSON.stringify(details)).byteLength > maxBytes)
      throw invalidAuthorizationDetails(`The authorization_details are longer than ${maxBytes} bytes.`);
    const checked: AuthorizationDetail[] = [];
    for (const [index, detail] of details.entries()) {
      if (!isAuthorizationDetail(detail))
        throw invalidAuthorizationDetails(
          `authorization_details[${index}] is not an object with a "type" and well-formed common fields (RFC 9396 section 2.2).`,
        );
      const type = types.get(detail.type);
      // RFC 9396 §5: an unknown type, or one the client is not allowed, is refused alike.
      if (
        type === undefined ||
        (client.authorizationDetailsTypes && !client.authorizationDetailsTypes.includes(detail.type))
      )
        throw invalidAuthorizationDetails(
          `The authorization details type ${JSON.stringify(detail.type)} is not accepted for this client.`,
        );
      const problem = type.validate(detail, { client });
      if (typeof problem === 'string')
        throw invalidAuthorizationDetails(`authorization_details[${index}] (${detail.type}): ${problem}`);
      checked.push(Object.freeze({ ...detail }));
    }
    return Object.freeze(checked);
  };

  return {
    types: Object.freeze([...types.keys()]),
    maxDetails,
    maxBytes,
    parse(text, client) {
      // The byte bound first: nothing longer is parsed (unauthenticated input, docs/security.md).
      if (encoder.encode(text).byteLength > maxBytes)
        throw invalidAuthorizationDetails(`The authorization_details are longer than ${maxBytes} bytes.`);
      let parsed: unknown;
      try {
        parsed = JSON.parse(text);
      } catch {
        throw invalidAuthorizationDetails('The authorization_details are not JSON (RFC 9396 section 2).');
      }
      return validate(parsed, client);
    },
    validate,
    describe: (details, locale) =>
      details.map((detail) => ({
        type: detail.type,
        detail,
        description: types.get(detail.type)?.describe(detail, locale) ?? detail.type,
      })),
    covers: (granted, requested) =>
      requested.every((wanted) =>
        granted.some((held) => {
          if (held.type !== wanted.type) return false;
          const covers = types.get(held.type)?.covers ?? coversByDefault;
          return covers(held, wanted);
        }),
      ),
  };
}

/**
 * The default comparison of RFC 9396 §6.1: `requested` asks for nothing `granted` does not hold.
 * Each member of `requested` is in `granted`: the arrays of §2.2 (`actions`, `locations`,
 * `datatypes`, `privileges`) as subsets, any other member as the same JSON value.
 */
export function coversByDefault(granted: AuthorizationDetail, requested: AuthorizationDetail): boolean {
  for (const [member, value] of Object.entries(requested)) {
    const held = granted[member];
    if ((STRING_ARRAY_MEMBERS as readonly string[]).includes(member)) {
      if (!Array.isArray(held) || !(value as readonly string[]).every((item) => held.includes(item)))
        return false;
    } else if (JSON.stringify(held) !== JSON.stringify(value)) return false;
  }
  return true;
}
