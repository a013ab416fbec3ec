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

function isIPv4(text: string): boolean {
  return text.split('.').every((part) => Number(part) <= 255);
}

/** The eight 16-bit groups of an IPv6 address, or `null` when `text` is not one. */
export function ipv6Groups(text: string): number[] | null {
  const halves = text.split('::');
  if (halves.length > 2) return null;
  const parse = (half: string): string[] | null => {
    if (half === '') return [];
    const parts = half.split(':');
    const last = parts.at(-1)!;
    // A trailing dotted quad (RFC 4291 §2.2, form 3) is the last two groups.
    if (last.includes('.')) {
      if (!/^\d{1,3}(\.\d{1,3}){3}$/.test(last) || !isIPv4(last)) return null;
      const [a, b, c, d] = last.split('.').map(Number) as [number, number, number, number];
      parts.splice(-1, 1, ((a << 8) | b).toString(16), ((c << 8) | d).toString(16));
    }
    return parts.every((part) => /^[0-9a-f]{1,4}$/i.test(part)) ? parts : null;
  };
  const head = parse(halves[0]!);
  const tail = halves.length === 2 ? parse(halves[1]!) : [];
  if (!head || !tail) return null;
  const missing = 8 - head.length - tail.length;
  if (halves.length === 2 ? missing < 1 : missing !== 0) return null;
  return [...head, ...Array<string>(missing).fill('0'), ...tail].map((group) => Number.parseInt(group, 16));
}
