/** Parsing of IPv6 address text (RFC 4291 §2.2), shared by the address checks of outbound fetches and rate limiting. */

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
