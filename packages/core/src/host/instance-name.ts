/**
 * Names of the instances a `createGatehouseHost` serves: the `{instance}` segment of `{base_url}`
 * (the address of one instance, including its name as a path segment), also the instance id of its records in the shared storage engine.
 */

/** Longest instance name: a DNS label's 63 characters, so a name can also be a subdomain. */
export const MAX_INSTANCE_NAME_LENGTH = 63;

/*
 * A letter or digit first, then letters, digits, `-`, `_` and `.`: never a dot segment (`.`, `..`),
 * never `.well-known`, nothing a URL or a cookie `Path` has to escape (RFC 3986 §2.3 unreserved
 * characters), no brace or whitespace (instance ids, storage/instance-id.ts). Case-sensitive, like
 * the path it comes from (RFC 3986 §6.2.2.1 leaves the path's case alone): `Acme` and `acme` are two
 * instances, so a host wanting one must lower-case names in its layout.
 */
const INSTANCE_NAME = /^[A-Za-z0-9][A-Za-z0-9._-]{0,62}$/;

/** Whether `name` is a usable instance name (see {@link MAX_INSTANCE_NAME_LENGTH} and the rule above). */
export function isInstanceName(name: string): boolean {
  return INSTANCE_NAME.test(name);
}
