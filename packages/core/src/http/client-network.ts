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
  const bare = address.startsWith('[') && address.endsWith(']') ? address.slice(1, -1) : address;
  if (!bare.includes(':')) return bare;
  const zoneless = bare.split('%', 1)[0]!; // fe80::1%eth0: the zone names an interface of ours
  const groups = ipv6Groups(zoneless);
  if (!groups) return address;
  if (groups.slice(0, 5).every((group) => group === 0) && groups[5] === 0xffff) {
    const [high, low] = [groups[6]!, groups[7]!];
    return `${high >> 8}.${high & 255}.${low >> 8}.${low & 255}`;
  }
  return `${groups
    .slice(0, 4)
    .map((group) => group.toString(16))
    .join(':')}::/64`;
}

/**
 * The aggregate a client network is also counted in, so that one party holding many addresses
 * cannot take many shares: an IPv4 address's /24 (`192.0.2.0/24`), an IPv6 network's /48
 * (`2001:db8:1::/48`, the usual end-site assignment of RFC 6177 §3). Anything that is not an IP
 * address is its own aggregate, like {@link clientNetwork}.
 */
export function networkAggregate(address: string): string {
  const network = clientNetwork(address);
  if (network.endsWith('::/64')) {
    const groups = network.slice(0, -'::/64'.length).split(':');
    return `${groups.slice(0, 3).join(':')}::/48`;
  }
  const octets = network.split('.');
  if (octets.length === 4 && octets.every((octet) => /^\d{1,3}$/.test(octet) && Number(octet) <= 255))
    return `${octets.slice(0, 3).join('.')}.0/24`;
  return network;
}
