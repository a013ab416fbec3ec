import { ipv6Groups } from './ipv6.js';

/**
 * Which addresses an outbound request of Gatehouse (a client ID metadata document, a client's
 * `jwks_uri`) may reach: public unicast addresses only, so that a URL chosen by an unauthenticated
 * party cannot make the server probe its own network (server-side request forgery, RFC 9700 §4.13
 * and draft-ietf-oauth-client-id-metadata-document, Security Considerations "SSRF").
 */
export interface AddressPolicy {
  /**
   * Loopback addresses (`127.0.0.0/8`, `::1`) and the name `localhost` are allowed: a development
   * setting, for documents served by a process on the same machine.
   */
  readonly allowLoopback: boolean;
  /**
   * Every address, private networks included: only for a URL the host configured itself (a
   * resource server's introspection endpoint on an internal network), never for one a request
   * names. The URL rules (https, or http to a loopback host) still hold.
   */
  readonly allowAnyAddress?: boolean;
}

/** Why an address may not be reached, or `undefined` when it is a public unicast address. */
export function refusedAddressReason(address: string, policy: AddressPolicy): string | undefined {
  const bare = address.startsWith('[') && address.endsWith(']') ? address.slice(1, -1) : address;
  if (policy.allowAnyAddress && (ipv4Octets(bare) || bare.includes(':'))) return undefined;
  const v4 = ipv4Octets(bare);
  if (v4) return refusedIpv4Reason(v4, policy);
  const groups = bare.includes(':') ? ipv6Groups(bare.split('%', 1)[0]!) : null;
  if (!groups) return 'it is not an IP address';
  return refusedIpv6Reason(groups, policy);
}

/** Whether `hostname` (as `URL.hostname` gives it) is an IP literal rather than a DNS name. */
export function isIpLiteral(hostname: string): boolean {
  return ipv4Octets(hostname) !== null || (hostname.startsWith('[') && hostname.endsWith(']'));
}

/** Whether `hostname` names the loopback interface: `localhost` (RFC 6761 §6.3), `127.x`, `[::1]`. */
export function isLoopbackHost(hostname: string): boolean {
  const name = hostname.toLowerCase().replace(/\.$/, '');
  if (name === 'localhost' || name.endsWith('.localhost')) return true;
  // A literal that only the loopback allowance lets through is a loopback address.
  return (
    isIpLiteral(name) &&
    refusedAddressReason(name, { allowLoopback: true }) === undefined &&
    refusedAddressReason(name, { allowLoopback: false }) !== undefined
  );
}

function ipv4Octets(text: string): number[] | null {
  if (!/^\d{1,3}(\.\d{1,3}){3}$/.test(text)) return null;
  const octets = text.split('.').map(Number);
  return octets.every((octet) => octet <= 255) ? octets : null;
}

/** IPv4 special-purpose ranges (IANA IPv4 Special-Purpose Address Registry, RFC 6890). */
function refusedIpv4Reason([a, b, c]: number[], policy: AddressPolicy): string | undefined {
  if (a === 127) return policy.allowLoopback ? undefined : 'it is a loopback address';
  if (a === 10 || (a === 172 && b! >= 16 && b! <= 31) || (a === 192 && b === 168))
    return 'it is a private address (RFC 1918)';
  if (a === 169 && b === 254) return 'it is a link-local address';
  if (a === 100 && b! >= 64 && b! <= 127) return 'it is a shared address (RFC 6598)';
  if (a === 0) return 'it is an unspecified address';
  if (a! >= 224) return 'it is a multicast or reserved address';
  if (
    (a === 192 && b === 0 && (c === 0 || c === 2)) ||
    // 6to4 relay anycast (RFC 7526 deprecated it; a relay forwards to wherever the packet names).
    (a === 192 && b === 88 && c === 99) ||
    (a === 198 && (b === 18 || b === 19)) ||
    (a === 198 && b === 51 && c === 100) ||
    (a === 203 && b === 0 && c === 113)
  )
    return 'it is a special-purpose address';
  return undefined;
}

/**
 * IPv6: only global unicast (`2000::/3`, RFC 4291 §2.4) outside the ranges that embed or tunnel to
 * IPv4 (6to4, Teredo, NAT64, whose IPv4 part is checked instead) and documentation; loopback when
 * allowed; IPv4-mapped addresses as the IPv4 address they map.
 */
function refusedIpv6Reason(groups: number[], policy: AddressPolicy): string | undefined {
  const embeddedV4 = () => [groups[6]! >> 8, groups[6]! & 255, groups[7]! >> 8, groups[7]! & 255];
  const zerosUntil = (end: number) => groups.slice(0, end).every((group) => group === 0);
  if (zerosUntil(7) && groups[7] === 1) return policy.allowLoopback ? undefined : 'it is a loopback address';
  if (zerosUntil(5) && groups[5] === 0xffff) return refusedIpv4Reason(embeddedV4(), policy);
  if (groups[0] === 0x64 && groups[1] === 0xff9b && groups.slice(2, 6).every((group) => group === 0))
    return refusedIpv4Reason(embeddedV4(), policy);
  const first = groups[0]!;
  if ((first & 0xfe00) === 0xfc00) return 'it is a unique-local address';
  if ((first & 0xffc0) === 0xfe80) return 'it is a link-local address';
  if ((first & 0xe000) !== 0x2000) return 'it is not a global unicast address';
  if (first === 0x2002 || (first === 0x2001 && groups[1] === 0)) return 'it is a tunnel address';
  if (first === 0x2001 && groups[1] === 0xdb8) return 'it is a documentation address';
  return undefined;
}
