import { ipv6Groups } from './ipv6.js';

/**
 * The network a client address is rate-limited as: an IPv4 address as itself, an IPv6 address as
 * its /64 prefix (`2001:db8:1:2::/64`), an IPv4-mapped IPv6 address (`::ffff:192.0.2.1`, what a
 * dual-stack Node socket reports for IPv4 clients) as the IPv4 address it maps.
 *
 * One host usually holds a whole IPv6 /64 (RFC 6177 §2 and RFC 7421: a /64 is the smallest subnet
 * handed out, and SLAAC picks the interface identifier freely), so counting single IPv6 addresses
 * would let one attacker have 2^64 fresh "addresses" — and as many fresh counters. Anything that is
 * not a valid IP address (a host's own `clientAddress` may return any text) is its own network.
 */
export function clientNetwork(address: string): string {
  const parsed = parseAddress(address);
  if (parsed === null) return address;
  if ('ipv4' in parsed) return parsed.ipv4.join('.');
  if ('ipv6' in parsed) return `${prefix(parsed.ipv6, 4)}::/64`;
  return parsed.text;
}

/**
 * The aggregate a client network belongs to, for a second, looser limit above the per-network one:
 * an IPv4 address's /24 (`192.0.2.0/24`), an IPv6 address's /48 (`2001:db8:1::/48`; an
 * IPv4-mapped one as the IPv4 address it maps). A /48 is what one site is usually given (RFC 6177
 * §3), a /24 the smallest IPv4 block routed on its own: one party rotating through the addresses
 * or /64s it holds stays in one aggregate. Anything that is not a valid IP address is its own
 * aggregate, as it is its own network.
 */
export function networkAggregate(address: string): string {
  const parsed = parseAddress(address);
  if (parsed === null) return address;
  if ('ipv4' in parsed) return `${parsed.ipv4.slice(0, 3).join('.')}.0/24`;
  if ('ipv6' in parsed) return `${prefix(parsed.ipv6, 3)}::/48`;
  return parsed.text;
}

/**
 * `address` (brackets and an IPv6 zone dropped) as IPv4 octets or IPv6 groups; text without a
 * colon that is not a dotted quad as itself; `null` for text with a colon that is no IPv6 address.
 */
function parseAddress(
  address: string,
): { readonly ipv4: number[] } | { readonly ipv6: number[] } | { readonly text: string } | null {
  const bare = address.startsWith('[') && address.endsWith(']') ? address.slice(1, -1) : address;
  if (!bare.includes(':')) {
    const octets = /^\d{1,3}(\.\d{1,3}){3}$/.test(bare) ? bare.split('.').map(Number) : [];
    return octets.length === 4 && octets.every((octet) => octet <= 255) ? { ipv4: octets } : { text: bare };
  }
  const zoneless = bare.split('%', 1)[0]!; // fe80::1%eth0: the zone names an interface of ours
  const groups = ipv6Groups(zoneless);
  if (!groups) return null;
  if (groups.slice(0, 5).every((group) => group === 0) && groups[5] === 0xffff) {
    const [high, low] = [groups[6]!, groups[7]!];
    return { ipv4: [high >> 8, high & 255, low >> 8, low & 255] };
  }
  return { ipv6: groups };
}

/** The first `count` groups of an IPv6 address, in hexadecimal, colon-separated. */
function prefix(groups: readonly number[], count: number): string {
  return groups
    .slice(0, count)
    .map((group) => group.toString(16))
    .join(':');
}
